/** The caller's own records: `/me` in one D1 round trip (the user row rides in the authentication batch). */
import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { notFound } from "../../errors";
import { read, type ServiceContext } from "../context";
import { userDto } from "./users";

export async function getMe(ctx: ServiceContext) {
  const [[row]] = await read(ctx, [ctx.db.select().from(users).where(eq(users.id, ctx.user.ref))]);
  if (!row) throw notFound("User");
  return userDto(row);
}
