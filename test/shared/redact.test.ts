/**
 * Passwords out of what is printed (src/shared/redact.ts): every form of connection string, alone or
 * inside a message, loses its password and nothing else.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { PostgresError } from "../../src/postgres/errors.js";
import { CONNECTION_STRING_SHAPE, redactConnectionString } from "../../src/shared/redact.js";

describe("redactConnectionString", () => {
  test.each([
    // URLs
    ["postgres://app:s3cret@db.example.com:5432/agents", "postgres://app:***@db.example.com:5432/agents"],
    ["postgresql://app:s3cret@db/agents?sslmode=require", "postgresql://app:***@db/agents?sslmode=require"],
    ["POSTGRES://app:s3cret@db/agents", "POSTGRES://app:***@db/agents"],
    ["postgres://:s3cret@db/agents", "postgres://:***@db/agents"],
    ["postgres://app:s3cret@[::1]:5432/agents", "postgres://app:***@[::1]:5432/agents"],
    ["postgres://app:s3cret@db", "postgres://app:***@db"],
    ["https://bot:tok3n@example.com/hook", "https://bot:***@example.com/hook"],
    // percent-encoded and raw special characters in the password
    ["postgres://app:p%40ss%3Aw%2Fd@db/agents", "postgres://app:***@db/agents"],
    ["postgres://app:p@ss@db/agents", "postgres://app:***@db/agents"],
    ["postgres://app:p:a:ss@db/agents", "postgres://app:***@db/agents"],
    ["postgres://app:pässwörd@db/agents", "postgres://app:***@db/agents"],
    // query parameters
    ["postgres://db/agents?user=app&password=s3cret", "postgres://db/agents?user=app&password=***"],
    ["postgres://db/agents?password=s3cret&sslmode=require", "postgres://db/agents?password=***&sslmode=require"],
    ["postgres://db/agents?PASSWORD=s3cret#x", "postgres://db/agents?PASSWORD=***#x"],
    ["postgres://db/agents?sslpassword=k3y", "postgres://db/agents?sslpassword=***"],
    ["postgres://app:one@db/agents?password=two", "postgres://app:***@db/agents?password=***"],
    ["socket:/var/run/postgresql?db=agents&password=s3cret", "socket:/var/run/postgresql?db=agents&password=***"],
    // a query value is no libpq quoted string: quotes are part of the password
    ["postgres://db/agents?password=''%24&sslmode=require", "postgres://db/agents?password=***&sslmode=require"],
    ["postgres://db/agents?password=''", "postgres://db/agents?password=***"],
    ["postgres://db/agents?password='s3 cret'", "postgres://db/agents?password=***"],
    // libpq keyword/value strings
    ["host=db password=s3cret dbname=agents", "host=db password=*** dbname=agents"],
    ["password=s3cret", "password=***"],
    ["host=db password = s3cret", "host=db password = ***"],
    ["host=db password='s3 cr\\'et' dbname=agents", "host=db password=*** dbname=agents"],
    ["host=db PassWord=s3cret", "host=db PassWord=***"],
    // inside a message, also cut short inside the password
    ['no run "postgres://app:s3cret@db/agents" in 127.0.0.1:5432', 'no run "postgres://app:***@db/agents" in 127.0.0.1:5432'],
    ['unknown command "postgres://app:s3cretpasswo"', 'unknown command "postgres://app:***"'],
    ["unexpected argument postgres://app:s3cr…", "unexpected argument postgres://app:***…"],
    ["postgres://app:two words@db/agents", "postgres://app:***@db/agents"],
    ["postgres://app:it's\"<q>`@db/agents", "postgres://app:***@db/agents"],
    ["see postgres://a:x@h1/db and postgres://b:y@h2/db", "see postgres://a:***@h1/db and postgres://b:***@h2/db"],
  ])("%s → %s", (given, redacted) => {
    expect(redactConnectionString(given)).toBe(redacted);
  });

  test.each([
    "postgres://app@db/agents",
    "postgres://db:5432/agents",
    "postgres://db/agents",
    "postgres://app:@db/agents",
    "postgres://[::1]:5432/agents",
    "postgres://db/agents?password=",
    "host=db dbname=agents",
    "localhost",
    "not a url at all: step 3 failed",
    "cannot reach PostgreSQL at 127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1",
    "ops@example.com",
    "",
    `is not a URL: expected ${CONNECTION_STRING_SHAPE}`,
  ])("no password: %j comes back unchanged", (text) => {
    expect(redactConnectionString(text)).toBe(text);
  });

  // Any password a URL can carry: raw (spaces inside too) but for the authority's ends (`/?#`), or percent-encoded.
  const password = fc.oneof(
    fc.string({ minLength: 1, maxLength: 20 }).filter((text) => !/[/?#]/.test(text) && text.trim() === text),
    fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent),
  );

  test("property: the URL comes back with *** for the password and every other part kept", () => {
    fc.assert(
      fc.property(password, fc.constantFrom("app", "", "a.b-c"), fc.constantFrom("db", "127.0.0.1:5433", "[::1]"), (secret, user, host) => {
        expect(redactConnectionString(`postgres://${user}:${secret}@${host}/agents?sslmode=require`)).toBe(
          `postgres://${user}:***@${host}/agents?sslmode=require`,
        );
        expect(redactConnectionString(`postgres://${host}/agents?password=${encodeURIComponent(secret)}&sslmode=require`)).toBe(
          `postgres://${host}/agents?password=***&sslmode=require`,
        );
      }),
    );
  });

  test("property: redacting twice is redacting once", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."postgres:/@?&=#' apwd1"), maxLength: 40 }), (text) => {
        const once = redactConnectionString(text);
        expect(redactConnectionString(once)).toBe(once);
      }),
    );
  });
});

test("a PostgresError's message has no password (a driver's text or a run id that was a connection string); its cause is kept", () => {
  const cause = new Error("password authentication failed for postgres://app:s3cret@db/agents");
  const error = new PostgresError("database-error", `PostgreSQL at db:5432 failed: ${cause.message}`, { cause });
  expect(error.message).toBe("PostgreSQL at db:5432 failed: password authentication failed for postgres://app:***@db/agents");
  expect(error.cause).toBe(cause);
  expect(new PostgresError("unknown-run", 'no run "postgres://app:s3cret@db/agents" in db:5432').message).toBe(
    'no run "postgres://app:***@db/agents" in db:5432',
  );
});
