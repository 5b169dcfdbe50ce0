import { z } from "@hono/zod-openapi";
import { EmojiSchema, IconSchema } from "../openapi";

const Collaborator = z
  .object({ userId: z.string(), role: z.string().openapi({ example: "owner" }) })
  .openapi("Collaborator");

export const UserSchema = z
  .object({ _id: z.string(), email: z.string(), name: z.string(), createdAt: z.number() })
  .openapi("User");

export const TokenSchema = z
  .object({
    _id: z.string(),
    name: z.string(),
    token: z.string(),
    createdAt: z.number(),
    expiresAt: z.number().nullable(),
    scopes: z.array(z.string()).nullable().openapi({
      description: "The token's scopes (docs/api-guide.md › Tokens and scopes); null: its user's full rights",
    }),
    resources: z
      .array(z.string())
      .nullable()
      .openapi({ description: "Organization, workspace or project ids the token is limited to; null: not limited" }),
  })
  .openapi("IssuedToken");

export const TokenInfoSchema = z
  .object({
    _id: z.string(),
    name: z.string(),
    createdAt: z.number(),
    expiresAt: z.number().nullable(),
    lastUsedAt: z.number().nullable(),
    scopes: z.array(z.string()).nullable(),
    resources: z.array(z.string()).nullable(),
  })
  .openapi("TokenInfo");

export const OrganizationSchema = z
  .object({
    _id: z.string(),
    name: z.string(),
    ownerId: z.string(),
    createdAt: z.number(),
    updatedAt: z.number(),
    role: z.string().optional(),
  })
  .openapi("Organization");

export const WorkspaceSchema = z
  .object({
    _id: z.string(),
    name: z.string(),
    isDefault: z.boolean(),
    isShared: z.boolean(),
    organizationId: z.string(),
    ownerId: z.string(),
    collaborators: z.array(Collaborator),
    createdAt: z.number(),
    updatedAt: z.number(),
    description: z.string(),
  })
  .openapi("Workspace");

export const ProjectSchema = z
  .object({
    _id: z.string(),
    userId: z.string(),
    workspaceId: z.string(),
    name: z.string(),
    originId: z.string(),
    reference: z.string(),
    description: z.string(),
    createdAt: z.number(),
    updatedAt: z.number(),
    icon: IconSchema.nullable(),
    emoji: EmojiSchema.nullable(),
    published: z.array(
      z.object({
        slug: z.string(),
        domain: z.string(),
        homepage: z.string(),
        password: z.string(),
        disabled: z.boolean(),
        domainVerification: z
          .object({ status: z.enum(["pending", "verified"]), txtName: z.string(), txtValue: z.string() })
          .optional()
          .openapi({
            description:
              "Present when the entry has a domain: the TXT record that proves ownership, and whether it has been verified (only a verified domain is served)",
          }),
      }),
    ),
    publishedBranding: z
      .object({
        company: z.object({ name: z.string(), logo: z.string(), url: z.string() }),
        callToAction: z.object({
          icon: z.object({ name: z.string(), color: z.string() }),
          text: z.string(),
          url: z.string(),
        }),
      })
      .nullable()
      .openapi("ProjectBranding", {
        description:
          "Set through PUT /project/{id}/branding; null until then. E13 returns the fuller PublishedBranding.",
      }),
  })
  .openapi("Project");

export const DocumentSchema = z
  .object({
    _id: z.string(),
    parentId: z.string().nullable(),
    projectId: z.string(),
    userId: z.string(),
    workspaceId: z.string(),
    name: z.string(),
    type: z.enum(["FOLDER", "DOCUMENT", "EXTERNAL"]),
    createdAt: z.number(),
    updatedAt: z.number(),
    description: z.string(),
    reference: z.string(),
    order: z.number(),
    isPublished: z.boolean(),
    publishedSettings: z
      .object({
        publishedById: z.string(),
        publishedAt: z.number(),
        styling: z.record(z.string(), z.unknown()),
        domainSlug: z.string(),
      })
      .nullable(),
    external: z
      .object({
        type: z.enum(["DOCX", "PDF"]),
        resourcePath: z.string(),
        resourceId: z.string(),
        seededAt: z.number().optional(),
      })
      .nullable(),
    icon: IconSchema.nullable(),
    emoji: EmojiSchema.nullable(),
    collaborators: z.array(Collaborator),
    isDeleted: z.boolean(),
    commentCount: z
      .number()
      .int()
      .openapi({ description: "Live comments on the document (docs/api-guide.md › Comments)" }),
    openCommentCount: z.number().int().openapi({ description: "Those of them in open threads" }),
  })
  .openapi("Document");

export const DocumentNotFoundSchema = z
  .object({ data: z.object({ _id: z.string(), isNotFound: z.literal(true) }) })
  .openapi("DocumentNotFound");
