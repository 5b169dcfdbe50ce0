import { monotonicFactory } from "ulidx";
import { z } from "@hono/zod-openapi";

const ulid = monotonicFactory();

/** Time-sortable, URL-safe identifiers (ULID, 26 characters). */
export function newId(): string {
  return ulid();
}

export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const IdSchema = z.string().min(1).max(64).regex(ID_PATTERN, "must be 1-64 characters of A-Z a-z 0-9 _ -");

export const now = () => Date.now();
