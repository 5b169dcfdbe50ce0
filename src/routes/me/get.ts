import { defineRoute } from "../../http/route";
import { eq } from "drizzle-orm";
import { errorResponses, okData, security, type Router } from "../../openapi";
import { users } from "../../db/schema";
import { userDto } from "../../services/identity/users";
import { UserSchema } from "../../schemas/core";
import { notFound } from "../../errors";

const route = defineRoute({
  operationId: "getMe",
  method: "get",
  path: "/me",
  tags: ["Identity"],
  summary: "The authenticated user",
  security,
  responses: { ...okData(UserSchema), ...errorResponses() },
});

export function registerGetMe(app: Router) {
  app.openapi(route, async (c) => {
    const [row] = await c.get("db").select().from(users).where(eq(users.id, c.get("user")._id));
    if (!row) throw notFound("User");
    return c.json({ data: userDto(row) }, 200);
  });
}
