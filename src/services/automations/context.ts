import type { AuthUser, Db, Env } from "../../env";

/** What every automation service gets from its caller (a request, the scheduled handler or the queue consumer). */
export interface ServiceCtx {
  db: Db;
  env: Env;
  user: AuthUser;
  now: number;
  waitUntil: (promise: Promise<unknown>) => void;
}
