import { z } from "@hono/zod-openapi";
import { ID_PATTERN } from "../lib/ids";

/** A record id in a request (path, query or body): the characters of src/lib/ids.ts's ID_PATTERN, 1–64 of them. */
export const IdSchema = z.string().min(1).max(64).regex(ID_PATTERN, "must be 1-64 characters of A-Z a-z 0-9 _ -");
