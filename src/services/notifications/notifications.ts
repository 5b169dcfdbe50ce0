/** The caller's in-app notifications (docs/api-guide.md › Organizations and workspaces): the list in one round trip with authentication. */
import { and, desc, eq, sql } from "drizzle-orm";
import { notifications } from "../../db/schema";
import { notFound } from "../../errors";
import { read, type ServiceContext } from "../context";

export const MAX_LISTED_NOTIFICATIONS = 200;

export function notificationDto(row: typeof notifications.$inferSelect) {
  return {
    _id: row.id,
    kind: row.kind,
    title: row.title,
    body: row.body,
    data: row.data ?? null,
    isRead: row.readAt !== null,
    readAt: row.readAt,
    createdAt: row.createdAt,
    // Reading is the only change a notification undergoes (docs/api-guide.md › Conventions: every record has updatedAt).
    updatedAt: row.readAt ?? row.createdAt,
  };
}

/** Newest first, at most 200. */
export async function listNotifications(ctx: ServiceContext) {
  const [rows] = await read(ctx, [
    ctx.db
      .select()
      .from(notifications)
      .where(eq(notifications.userId, ctx.user.ref))
      .orderBy(desc(notifications.createdAt), desc(notifications.id))
      .limit(MAX_LISTED_NOTIFICATIONS),
  ]);
  return rows.map(notificationDto);
}

/** Marks one of the caller's notifications read (the first reading time is kept); another user's is 404. */
export async function markNotificationRead(ctx: ServiceContext, { notificationId }: { notificationId: string }) {
  const [row] = await ctx.db
    .update(notifications)
    .set({ readAt: sql`COALESCE(${notifications.readAt}, ${ctx.now})` })
    .where(and(eq(notifications.id, notificationId), eq(notifications.userId, ctx.user.id)))
    .returning();
  if (!row) throw notFound("Notification");
  return notificationDto(row);
}
