// The page's entry point. trunk would write this as an inline <script type="module"> in
// index.html; as a file of its own it runs under a Content-Security-Policy with neither
// 'unsafe-inline' nor a hash that changes with every build. Trunk.toml's pattern_script puts the
// hashed names of the wasm-bindgen glue and the wasm on this script's tag.
const tag = document.querySelector("script[data-memwall-glue]");
try {
  const glue = await import(new URL(tag.dataset.memwallGlue, document.baseURI).href);
  await glue.default({ module_or_path: new URL(tag.dataset.memwallWasm, document.baseURI).href });
} catch (error) {
  const boot = document.getElementById("boot");
  if (boot) boot.textContent = `memwall could not start: ${(error && error.message) || error}`;
  throw error;
}
