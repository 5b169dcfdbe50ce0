/** The caller's own records: `/me` in one D1 round trip (the user row rides in the authentication batch). */
import { notFound } from "../../errors";
import { read, type ServiceContext } from "../context";
import { userDto } from "./users";
import { userStatement } from "./queries";

export async function getMe(ctx: ServiceContext) {
  const [[row]] = await read(ctx, [userStatement(ctx.db, ctx.user.ref)]);
  if (!row) throw notFound("User");
  return userDto(row);
}
