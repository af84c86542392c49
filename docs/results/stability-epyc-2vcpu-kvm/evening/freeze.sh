#!/bin/bash
# Holds every other session's work (builds, tests, browsers, their memwall runs) with SIGSTOP while
# the stability runs measure; resumes it after. The lead's measuring binary lives in /tmp/mwlead.
names='rustc|cargo|node|chromium|chrome|firefox-esr|firefox|geckodriver|WebKitWebDriver|trunk|wasm-opt|wasm-bindgen|cc1|ld|collect2|rust-lld|Xvfb|cc|prometheus|MiniBrowser|WebKitWebProcess|WebKitNetworkProcess'
others() { pgrep -f 'memwall' | while read p; do exe=$(readlink /proc/$p/exe 2>/dev/null); case "$exe" in /tmp/mwlead/*) ;; *) [ -n "$exe" ] && case "$exe" in */bash|*/sh|*/python3*) ;; *) echo $p;; esac;; esac; done; }
while [ -e /tmp/stab/freezing ]; do
  pkill -STOP -x "$names" 2>/dev/null
  for p in $(others); do kill -STOP $p 2>/dev/null; done
  sleep 0.5
done
pkill -CONT -x "$names" 2>/dev/null
for p in $(others); do kill -CONT $p 2>/dev/null; done
pkill -CONT -f memwall 2>/dev/null
