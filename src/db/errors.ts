/** Whether a D1 error (possibly wrapped by drizzle as `cause`) is a UNIQUE/PRIMARY KEY violation on `target` ("table.column"). */
export function isUniqueViolation(err: unknown, target: string): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const message = String((e as Error).message ?? e);
    if (message.includes("UNIQUE constraint failed") && message.includes(target)) return true;
  }
  return false;
}
