/**
 * `PUT /document/{id}/content` (API.md §5, §18): edit access, then a new content version. When the document's
 * collaborative room holds state, the write goes through the room, which stores it and applies it to the shared
 * document as one Yjs transaction, so connected editors see it and the room's next write-back cannot undo it.
 */
import { assembleDocumentsAccess, checkDocumentAccess, documentsAccessStatements } from "../../auth/access";
import { read, type ServiceContext } from "../context";
import { roomOf, roomStateStatement, unwrapRoom } from "../collab/rooms";
import { writeContent } from "./store";

export async function putDocumentContent(ctx: ServiceContext, input: { documentId: string; blocksJson: string; baseVersion?: number }): Promise<{ version: number }> {
  const { documentId } = input;
  // Access and "has a room" in the request's one read batch.
  const [docs, wsRoles, docRoles, room] = await read(ctx, [...documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]), roomStateStatement(ctx.db, documentId)]);
  checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId), "edit");
  if (room.length > 0) {
    const { version } = unwrapRoom(
      await roomOf(ctx.env, documentId).replaceBlocks({ documentId, userId: ctx.user.id, blocksJson: input.blocksJson, baseVersion: input.baseVersion, store: true }),
    );
    return { version: version! };
  }
  return writeContent(ctx.db, ctx.env.BLOBS, { documentId, userId: ctx.user.id, blocksJson: input.blocksJson, baseVersion: input.baseVersion });
}
