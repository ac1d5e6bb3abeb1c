/**
 * Passwords out of what is printed: a connection string (`--database`, `DATABASE_URL`, a
 * `connectionString`) is a secret as much as an address, and messages, logs and the commands a message
 * tells the reader to paste all end up in terminals, CI logs and bug reports.
 */

/** What a password is replaced with. */
export const REDACTED = "***";

/**
 * What a PostgreSQL connection string looks like, for messages. Its `password` is a placeholder the
 * documentation prints too, so `redactConnectionString` leaves this one text as it is.
 *
 * @example
 * `is not a URL: expected ${CONNECTION_STRING_SHAPE}` // "is not a URL: expected postgres://user:password@host:5432/database"
 */
export const CONNECTION_STRING_SHAPE = "postgres://user:password@host:5432/database";

/**
 * A URL's scheme and authority (WHATWG: the authority ends at the first `/`, `?`, `#`; here also at a
 * space, the end of a URL inside a message, but not at a quote: a password may hold one raw).
 */
const URL_AUTHORITY = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#]*)/gi;
/** The same, of a text that is one URL as a whole: a URL parser takes a space in a password (as `%20`). */
const WHOLE_URL_AUTHORITY = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i;

/**
 * A `…password=` pair: a URL's query parameter (after `?` or `&`: its value ends at `&` or `#`), or
 * a libpq keyword (its value ends at a space, or is quoted with `'`, `\'` inside). `sslpassword` too.
 * A quoted value runs on to the next space, `&` or `#`: in a query the quotes are the password's own
 * characters (`?password=''%24` is the password `''$`).
 */
const PASSWORD_PAIR = /(^|[?&;\s])([a-z_]*password)(\s*=\s*)('(?:[^'\\]|\\.)*'?[^\s&#]*|[^\s]*)/gi;

/**
 * `text` with every password a connection string in it holds replaced by `***`: a URL's
 * `user:password@` (any scheme; the password ends at the authority's last `@`, so a raw `@` in it is
 * hidden too, and so is a percent-encoded one), a `password=` query parameter and a libpq
 * `password=…` keyword (quoted or not). It works on a connection string alone and on a message that
 * holds one, even cut short: a URL whose authority has a `user:` but no `@` any more (the message was
 * cut inside the password) loses what follows the `:` unless that reads as a port. Text with no
 * password comes back unchanged; the documented placeholder `CONNECTION_STRING_SHAPE` is kept.
 *
 * @example
 * redactConnectionString("postgres://app:s3cret@db:5432/agents") // "postgres://app:***@db:5432/agents"
 * redactConnectionString("postgres://db/agents?user=app&password=s3cret") // "postgres://db/agents?user=app&password=***"
 * redactConnectionString("host=db password='s3 cret' dbname=agents") // "host=db password=*** dbname=agents"
 * redactConnectionString("postgres://app@db/agents") // unchanged
 */
export function redactConnectionString(text: string): string {
  return text
    .split(CONNECTION_STRING_SHAPE)
    .map((part) =>
      part.replace(URL.canParse(part) ? WHOLE_URL_AUTHORITY : URL_AUTHORITY, redactAuthority).replace(PASSWORD_PAIR, redactPair),
    )
    .join(CONNECTION_STRING_SHAPE);
}

function redactAuthority(whole: string, scheme: string, authority: string): string {
  const at = authority.lastIndexOf("@");
  if (at >= 0) {
    const colon = authority.indexOf(":");
    // No password (`user@host`), or an empty one: nothing to hide.
    if (colon < 0 || colon > at || colon === at - 1) return whole;
    return `${scheme}${authority.slice(0, colon + 1)}${REDACTED}${authority.slice(at)}`;
  }
  // No `@`: `host:port`, `[::1]:port`, or a userinfo cut off before its `@` (the message's closing
  // quote or ellipsis, if any, kept).
  const colon = authority.indexOf(":");
  if (colon < 0 || authority.startsWith("[") || /^\d*$/.test(authority.slice(colon + 1))) return whole;
  return `${scheme}${authority.slice(0, colon + 1)}${REDACTED}${/["')…]*$/.exec(authority)![0]}`;
}

function redactPair(whole: string, before: string, key: string, equals: string, value: string): string {
  const inQuery = before === "?" || before === "&";
  // Empty: nothing to hide (`''` is libpq's empty password; in a query it is two characters of one).
  if (value === "" || (value === "''" && !inQuery)) return whole;
  // In a URL's query the value ends at `&` or `#`; what follows stays.
  const end = inQuery ? value.search(/[&#]/) : -1;
  return `${before}${key}${equals}${REDACTED}${end < 0 ? "" : value.slice(end)}`;
}
