// A sandboxed processor that can crash its sandbox (docs/sandboxes.md, crashes): process.exit
// ends the child process running it, as a native module's fault or running out of memory would.
export default function resize(job) {
  if (job.payload.corrupt) process.exit(3);
  return { width: Math.round(job.payload.width / 2) };
}
