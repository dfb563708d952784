// A sandboxed processor that never returns (docs/sandboxes.md, timeouts): a loop the worker's
// timeoutMs ends by ending its sandbox.
export default function spin() {
  for (;;);
}
