// One small driving interface over three engines, so that the checks in checks.mjs are written
// once and run in each: Chromium through playwright-core (CDP), Firefox ESR and WebKit through
// WebDriver (selenium-webdriver talking to geckodriver and to WebKitGTK's WebKitWebDriver;
// Playwright cannot drive Debian's Firefox or WebKitGTK).
//
// A tab: goto(url), waitFor(selector, ms), exists(selector), click(selector), fill(selector, text),
// setFile(selector, path), eval(expression) (a JavaScript expression, its value returned),
// inFrame(selector, async (frame) => ...) (the same calls inside an iframe), screenshot(file)
// (the tab, for people to look at; never a check), close().

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT, launch } from "./lib.mjs";

const POLL_MS = 100;
const POLL_MAX_MS = 2_000;
/** The longest a WebDriver command may go unanswered: past the session's own page-load and script
 * timeouts (120 s), so only an engine that stopped answering reaches it. A WebKit web process once
 * spun at 100% on a fresh-clone CI run (a Zen 4 guest, 2026-12-07) and the next command waited
 * for it for over 14 minutes; the run never ended. MEMWALL_E2E_COMMAND_MS sets it (to try the
 * path by hand). */
const COMMAND_MAX_MS = Number(process.env.MEMWALL_E2E_COMMAND_MS ?? 180_000);

/** What a command that got no answer throws: the engine hung, not the page's check. */
export class EngineHung extends Error {}

/** What a WebDriver tab's `waitFor` throws when the selector never showed and the page had not
 * come up at all (its app never mounted: no element under `body` but the loader's). Its message
 * holds what the page held then (address, load state, the first of its text). A fresh-clone CI
 * run on a Zen 3 guest (2026-12-07) had WebKit open the Reports tab of six kept reports in 2 s
 * each and show nothing for the seventh in 120 s; 84 such opens in a row by hand all came up. */
export class PageNeverCame extends Error {}

/** What the page held when a wait ran out: for the error, so that a failure says what it saw. */
const PAGE_STATE = `(() => {
  const body = document.body;
  return { url: location.href, ready: document.readyState, elements: body ? body.querySelectorAll("*").length : 0,
    mounted: !!body && [...body.children].some((e) => e.id !== "boot" && !["NOSCRIPT", "SCRIPT", "LINK", "STYLE"].includes(e.tagName)),
    text: body ? body.innerText.slice(0, 200) : "" };
})()`;

/** What `commands()` (an async function) returns, or EngineHung once `ms` pass first. */
function answered(commands, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new EngineHung(`${what}: no answer in ${(ms / 1000).toFixed(0)} s`)), ms);
  });
  return Promise.race([commands(), late]).finally(() => clearTimeout(timer));
}

/** How long a browser may take to quit before it is taken for hung (its processes are then
 * killed where this file started them). */
const QUIT_MAX_MS = 10_000;

/** Chromium: each tab a page of a fresh context (its own cold HTTP cache). */
export async function chromium() {
  const browser = await launch();
  const errors = [];
  return {
    name: "Chromium",
    errors,
    version: browser.version(),
    async open() {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "light" });
      context.setDefaultTimeout(120_000);
      const page = await context.newPage();
      page.on("pageerror", (e) => errors.push(`${page.url()}: ${e.message}`));
      const tab = playwrightTab(page);
      tab.page = page;
      tab.screenshot = (file) => page.screenshot({ path: file, fullPage: true });
      tab.close = () => context.close();
      return tab;
    },
    close: () => browser.close(),
  };
}

function playwrightTab(target) {
  return {
    goto: (url) => target.goto(url),
    waitFor: (selector, ms = 120_000) => target.waitForSelector(selector, { timeout: ms, state: "attached" }),
    exists: async (selector) => (await target.$(selector)) !== null,
    click: (selector) => target.click(selector),
    fill: (selector, text) => target.fill(selector, text),
    setFile: (selector, file) => target.setInputFiles(selector, file),
    eval: (expression) => target.evaluate(expression),
    async inFrame(selector, body) {
      const handle = await target.waitForSelector(selector);
      const frame = await handle.contentFrame();
      await frame.waitForLoadState();
      return body(playwrightTab(frame));
    },
  };
}

/** geckodriver from .tools (scripts/setup.sh --test), or from PATH. */
export function geckodriverPath() {
  const local = path.join(ROOT, ".tools", "bin", "geckodriver");
  return process.env.GECKODRIVER ?? (existsSync(local) ? local : "geckodriver");
}

export const FIREFOX = process.env.FIREFOX ?? "/usr/bin/firefox-esr";

/** Firefox ESR over WebDriver: one session, a new window per tab. */
export async function firefox() {
  const { Builder } = await import("selenium-webdriver");
  const { default: firefoxDriver } = await import("selenium-webdriver/firefox.js");
  // Both paths given: Selenium Manager, which would download a driver or a browser, never runs.
  const options = new firefoxDriver.Options().setBinary(FIREFOX).addArguments("-headless");
  options.setProfile(mkdtempSync(path.join(tmpdir(), "memwall-firefox-")));
  const service = new firefoxDriver.ServiceBuilder(geckodriverPath());
  const driver = await new Builder().forBrowser("firefox").setFirefoxOptions(options).setFirefoxService(service).build();
  return webDriverBrowser("Firefox", driver, () => answered(() => driver.quit(), QUIT_MAX_MS, "Firefox: quit").catch(() => {}));
}

/** WebKitGTK's WebDriver and its MiniBrowser (Debian's webkit2gtk-driver and libwebkit2gtk-4.1),
 * as scripts/setup.sh --test installs them. */
export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER ?? "/usr/bin/WebKitWebDriver";
export const WEBKIT_BROWSER = process.env.WEBKIT_BROWSER ?? "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

/** WebKit (Safari's engine) over WebDriver: WebKitGTK has no headless mode, so it draws on an Xvfb
 * display of its own (`-displayfd`: the server picks a free display and says which), and
 * WebKitWebDriver listens on a port the system gave another socket a moment before. */
export async function webkit() {
  const { Builder, Capabilities } = await import("selenium-webdriver");
  const children = [];
  const stop = () => children.forEach((c) => c.kill());
  process.on("exit", stop);
  const xvfb = spawn("Xvfb", ["-displayfd", "3", "-screen", "0", "1280x900x24", "-nolisten", "tcp"], { stdio: ["ignore", "ignore", "ignore", "pipe"] });
  children.push(xvfb);
  const display = await lineFrom(xvfb, 3, /^(\d+)$/m, "Xvfb");
  const port = await freePort();
  // Its own process group, so that stopping it stops MiniBrowser and its web processes too (a
  // hung web process left behind would spin on a core through every later timing).
  const driverProcess = spawn(WEBKIT_DRIVER, [`--port=${port}`], { env: { ...process.env, DISPLAY: `:${display}` }, stdio: "ignore", detached: true });
  children.push({ kill: () => { try { process.kill(-driverProcess.pid, "SIGKILL"); } catch { /* gone */ } } });
  const capabilities = new Capabilities({ browserName: "MiniBrowser",
    "webkitgtk:browserOptions": { binary: WEBKIT_BROWSER, args: ["--automation", "--geometry=1280x900"] } });
  let driver;
  for (let tries = 0; !driver; tries++) {
    try {
      driver = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities(capabilities).build();
    } catch (error) {
      // The driver may not listen yet: tries for 5 s, then its own words.
      if (tries >= 20 || driverProcess.exitCode !== null) throw error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  // A window per tab: MiniBrowser draws only the tab in front, and a tab behind never loads an
  // iframe marked loading="lazy" (the embed snippet's), however long it waits.
  const close = async () => {
    await answered(() => driver.quit(), QUIT_MAX_MS, "WebKit: quit").catch(() => {});
    stop();
  };
  return webDriverBrowser("WebKit", driver, close, "window");
}

/** The first line of `child`'s stream `fd` that `pattern` matches: its first group, or the line. */
function lineFrom(child, fd, pattern, what) {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`${what} said nothing in 15 s: ${seen}`)), 15_000);
    child.stdio[fd].on("data", (chunk) => {
      seen += chunk;
      const match = seen.match(pattern);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] ?? match[0]);
      }
    });
    child.on("exit", (code) => reject(new Error(`${what} exited with ${code}: ${seen}`)));
  });
}

/** A port no one listens on now: the system's pick for a socket closed right after. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The tab interface over one WebDriver session (Firefox's or WebKit's): each tab after the first
 * a new top-level browsing context of kind `opens` ("tab" or "window"). */
async function webDriverBrowser(name, driver, close, opens = "tab") {
  const { By } = await import("selenium-webdriver");
  await driver.manage().setTimeouts({ script: 120_000, pageLoad: 120_000 });
  const capabilities = await driver.getCapabilities();
  const first = await driver.getWindowHandle();
  let opened = 0;

  const tab = (enter) => {
    const run = (body) => answered(async () => {
      await enter();
      return body();
    }, COMMAND_MAX_MS, `${name}: a WebDriver command`);
    const element = (selector) => run(() => driver.findElement(By.css(selector)));
    const self = {
      goto: (url) => run(() => driver.get(url)),
      exists: (selector) => run(async () => (await driver.findElements(By.css(selector))).length > 0),
      async waitFor(selector, ms = 120_000) {
        const end = Date.now() + ms;
        // Backing off: each look is several WebDriver calls (a frame's, more), and with 2 cores
        // looking ten times a second for minutes takes CPU from the worker being timed (an
        // embed's ladder read 17-21% slow at every size, L1 too).
        for (let wait = POLL_MS; Date.now() < end; wait = Math.min(wait * 1.5, POLL_MAX_MS)) {
          if (await self.exists(selector)) return;
          await new Promise((r) => setTimeout(r, wait));
        }
        const state = await self.eval(PAGE_STATE).catch((error) => ({ unreadable: String(error) }));
        const seen = `${name}: no ${selector} after ${ms} ms; the page then: ${JSON.stringify(state)}`;
        throw state.mounted === false ? new PageNeverCame(seen) : new Error(seen);
      },
      async click(selector) {
        await self.waitFor(selector);
        // A click as a script would make it: the element is found again at the moment of the click.
        await run(() => driver.executeScript(`document.querySelector(${JSON.stringify(selector)}).click()`));
      },
      async fill(selector, text) {
        await self.waitFor(selector);
        const input = await element(selector);
        await input.clear();
        await input.sendKeys(text);
      },
      async setFile(selector, file) {
        await self.waitFor(selector);
        await (await element(selector)).sendKeys(file);
      },
      eval: (expression) => run(() => driver.executeScript(`return (${expression});`)),
      async inFrame(selector, body) {
        await self.waitFor(selector);
        const frameElement = await element(selector);
        const inner = tab(async () => {
          await enter();
          await driver.switchTo().frame(frameElement);
        });
        try {
          return await body(inner);
        } finally {
          await enter();
        }
      },
    };
    return self;
  };

  return {
    name,
    errors: [],
    version: `${capabilities.get("browserName")} ${capabilities.get("browserVersion")}`,
    async open() {
      let handle = first;
      if (opened++ > 0) {
        handle = await answered(async () => {
          await driver.switchTo().newWindow(opens);
          return driver.getWindowHandle();
        }, COMMAND_MAX_MS, `${name}: a new window`);
      }
      const enter = async () => {
        await driver.switchTo().window(handle);
        await driver.switchTo().defaultContent();
      };
      const t = tab(enter);
      t.screenshot = async (file) => {
        await enter();
        writeFileSync(file, Buffer.from(await driver.takeScreenshot(), "base64"));
      };
      t.close = async () => {
        // The session's first window stays: closing the last one would end the session.
        if (handle === first) return t.goto("about:blank");
        await answered(async () => {
          await enter();
          await driver.close();
          await driver.switchTo().window(first);
        }, COMMAND_MAX_MS, `${name}: closing a window`);
      };
      return t;
    },
    close,
  };
}
