import { z } from "@hono/zod-openapi";
import { isHttpUrl, looksLikeUrl } from "../../lib/httpUrl";

/** Slugs name portals in URLs (/site/{slug}): lower-case letters, digits and inner hyphens. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Path segments of the reader site that are not portals. */
export const RESERVED_SLUGS = new Set(["assets", "site", "api", "static"]);

export const SlugSchema = z
  .string()
  .trim()
  .toLowerCase()
  .min(1)
  .max(63)
  .regex(SLUG_PATTERN, "must be lower-case letters, digits and inner hyphens")
  .refine((s) => !RESERVED_SLUGS.has(s), "is reserved")
  .openapi({ example: "handbook" });

export const SlugParam = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[A-Za-z0-9-]+$/)
  .openapi({ param: { name: "slug", in: "path" }, example: "handbook" });

/** A host name (optionally with a port) whose requests get the portal at `/`; "" for none. */
export const DomainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(
    /^(?:(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?::\d{1,5})?)?$/,
    "must be a host name such as docs.example.com",
  )
  .openapi({ example: "docs.example.com" });

export const HomepageSchema = z
  .string()
  .max(64)
  .regex(/^(?:[A-Za-z0-9_-]{1,64})?$/, "must be a document id or empty");
export const PasswordSchema = z.string().max(200);
export const ExpiresAtSchema = z.number().int().min(0).max(8_640_000_000_000_000);

const Str = (max: number) => z.string().max(max);
/** A link readers follow: "" (none) or an absolute http(s) URL (docs/api-guide.md, "Published portals"). */
const LinkStr = Str(2048).refine((s) => s === "" || isHttpUrl(s), "must be an http or https URL");
/** A social handle ("acme", "@acme") or an http(s) URL to the profile; no other scheme. */
const HandleStr = Str(200).refine((s) => !looksLikeUrl(s) || isHttpUrl(s), "must be a handle or an http or https URL");

export const BrandingBodySchema = z.strictObject({
  company: z
    .strictObject({ name: Str(500), logo: LinkStr, url: LinkStr })
    .partial()
    .optional(),
  callToAction: z
    .strictObject({
      enabled: z.boolean(),
      icon: z.strictObject({ name: Str(200), color: Str(200) }).partial(),
      text: Str(500),
      url: LinkStr,
    })
    .partial()
    .optional(),
  socials: z
    .array(z.strictObject({ platform: Str(50), handle: HandleStr }))
    .max(20)
    .optional(),
});

export const BrandingSchema = z
  .object({
    company: z.object({ name: z.string(), logo: z.string(), url: z.string() }),
    callToAction: z.object({
      enabled: z.boolean(),
      icon: z.object({ name: z.string(), color: z.string() }),
      text: z.string(),
      url: z.string(),
    }),
    socials: z.array(z.object({ platform: z.string(), handle: z.string() })),
  })
  .openapi("PublishedBranding");

const IconOut = z.object({ name: z.string(), color: z.string() }).nullable();
const EmojiOut = z.object({ unified: z.string(), emojiStyle: z.string() }).nullable();

export const PublishedProjectSchema = z
  .object({
    projectId: z.string(),
    projectData: z.object({
      name: z.string(),
      description: z.string(),
      icon: IconOut,
      emoji: EmojiOut,
      homepage: z.string(),
      documents: z.array(
        z.object({
          _id: z.string(),
          parentId: z.string().nullable(),
          name: z.string(),
          type: z.string(),
          order: z.number(),
          icon: IconOut,
          emoji: EmojiOut,
        }),
      ),
    }),
  })
  .openapi("PublishedProject");

export const PublishedIdParam = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]{1,64}$/)
  .openapi({
    param: { name: "publishedId", in: "path" },
    description: "A project id, or `home` for the portal of the Host header (else `?slug=`)",
    example: "home",
  });

export const PortalQuery = z.object({
  slug: z
    .string()
    .min(1)
    .max(63)
    .regex(/^[A-Za-z0-9-]+$/)
    .optional()
    .openapi({ description: "Selects one entry (and resolves `home` when the Host matches none)" }),
});
