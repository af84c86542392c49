//! The worker's lifecycle as a hook, one for every page that measures: start a run, cancel it,
//! know whether one is running, and hear only from the run started last. The worker goes when
//! its run ends, when it is cancelled, when another run replaces it, and when the page goes.

use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::rc::Rc;

use yew::prelude::*;

use crate::worker::{self, Message, Protocol, WorkerHandle};

struct Inner<E> {
    handle: RefCell<Option<WorkerHandle>>,
    /// Bumped by every start and cancel: a message of an earlier run is dropped.
    run: Cell<u32>,
    /// The page's latest callback (it is made anew at every render).
    on_message: RefCell<Callback<Message<E>>>,
}

/// A page's worker: what [`use_worker`] returns.
pub struct WorkerControl<P: Protocol> {
    inner: Rc<Inner<P::Event>>,
    running: UseStateHandle<bool>,
    protocol: PhantomData<P>,
}

impl<P: Protocol> Clone for WorkerControl<P> {
    fn clone(&self) -> Self {
        Self { inner: self.inner.clone(), running: self.running.clone(), protocol: PhantomData }
    }
}

impl<P: Protocol> PartialEq for WorkerControl<P> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner) && *self.running == *other.running
    }
}

impl<P: Protocol> std::fmt::Debug for WorkerControl<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerControl").field("running", &*self.running).finish()
    }
}

impl<P: Protocol> WorkerControl<P> {
    pub fn running(&self) -> bool {
        *self.running
    }

    /// Starts `job` in a new worker, ending any run before it. An error says why no worker
    /// could start; the page shows it.
    pub fn start(&self, job: &P::Job) -> Result<(), String> {
        self.stop();
        let run = self.inner.run.get();
        let inner = Rc::downgrade(&self.inner);
        let running = self.running.clone();
        let handle = worker::spawn::<P>(job, move |message| {
            let Some(inner) = inner.upgrade() else { return };
            if inner.run.get() != run {
                return;
            }
            let last = match &message {
                Message::Event(event) => P::is_last(event),
                Message::Failed(_) => true,
            };
            if last {
                // Done: the worker goes now, and no later message of this run counts.
                inner.run.set(run.wrapping_add(1));
                inner.handle.borrow_mut().take();
                running.set(false);
            }
            let on_message = inner.on_message.borrow().clone();
            on_message.emit(message);
        })
        .map_err(|e| format!("could not start the measuring worker: {e}"))?;
        *self.inner.handle.borrow_mut() = Some(handle);
        self.running.set(true);
        Ok(())
    }

    /// Stops the run, if any, mid-sample; the page says what that leaves.
    pub fn cancel(&self) {
        self.stop();
        self.running.set(false);
    }

    fn stop(&self) {
        self.inner.run.set(self.inner.run.get().wrapping_add(1));
        // Dropping the handle terminates the worker.
        self.inner.handle.borrow_mut().take();
    }
}

/// The worker of a page, whose messages go to `on_message`.
#[hook]
pub fn use_worker<P: Protocol>(on_message: Callback<Message<P::Event>>) -> WorkerControl<P> {
    let inner = use_memo((), |_| Inner {
        handle: RefCell::new(None),
        run: Cell::new(0),
        on_message: RefCell::new(on_message.clone()),
    });
    *inner.on_message.borrow_mut() = on_message;
    let running = use_state(|| false);
    {
        let inner = inner.clone();
        // Leaving the page terminates its worker.
        use_effect_with((), move |_| move || drop(inner.handle.borrow_mut().take()));
    }
    WorkerControl { inner, running, protocol: PhantomData }
}
