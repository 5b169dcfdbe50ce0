// Expected failures of the local scripts: one line for the user, no stack trace.

/** A failure the user can act on (a taken port, a missing tool); its message is the whole report. */
export class StartError extends Error {
  constructor(message, { hint } = {}) {
    super(message);
    this.name = "StartError";
    this.hint = hint;
  }
}

/**
 * Runs `main`; on any failure runs `cleanup` (stop every child) and exits non-zero. A StartError prints its
 * message (and hint) only; anything else is a bug in the script and keeps its stack.
 */
export async function runMain(main, { cleanup = async () => {} } = {}) {
  try {
    await main();
  } catch (err) {
    if (err instanceof StartError) {
      console.error(`\n✗ ${err.message}${err.hint ? `\n  ${err.hint}` : ""}`);
    } else {
      console.error(err);
    }
    await cleanup().catch(() => {});
    process.exit(1);
  }
}
