// The security rule every activity label passes (main/core/activity/redact-secrets.ts): one
// case per kind of secret it masks, and the near misses it must leave as written.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { redactSecrets } from "../../main/core/activity/redact-secrets.ts";

const masks = (cases: Array<[string, string]>): void => {
  for (const [text, redacted] of cases) assert.equal(redactSecrets(text), redacted, JSON.stringify(text));
};

describe("redactSecrets", () => {
  test("masks env values, options, URLs, bearer values and long blobs, and nothing else", () => {
    masks([
      ['export GH_TOKEN="ghp_abcdefghijklmnopqrstuvwx" && gh pr list', "export GH_TOKEN=*** && gh pr list"],
      ["deploy --api-key=zzz --password p4ss", "deploy --api-key=*** --password ***"],
      ["git clone https://ann:pw@github.com/o/r.git", "git clone https://***@github.com/o/r.git"],
      ["curl https://x.dev/a?access_token=abc&page=2", "curl https://x.dev/a?access_token=***&page=2"],
      ["echo aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQgZGF0YQ3Z", "echo ***"],
      ["git show 3f2a9c1d4e5b6a7980f1e2d3c4b5a69788776655", "git show ***"],
    ]);
    const plain = ["git commit --author Ann -m fix", "lines 1-5 from docs/guide.md", "run sleep 1 → print text"];
    plain.push("node --check /tmp/app.js", "a=1 npm test");
    for (const text of plain) assert.equal(redactSecrets(text), text);
  });

  test("Authorization headers keep their scheme word and lose the value", () => {
    masks([
      ['curl -H "Authorization: Bearer abc.def"', 'curl -H "Authorization: Bearer ***"'],
      ["authorization=xyz", "authorization=***"],
    ]);
  });

  test("a bearer or basic value on its own, eight characters or more", () => {
    masks([
      ["use bearer abcdefgh1234 now", "use bearer *** now"],
      ["Basic dXNlcjpwYXNz", "Basic ***"],
      ["basic setup", "basic setup"],
    ]);
  });

  test("a user and password in any URL scheme", () => {
    masks([
      ["psql postgres://app:s3cr3t@db.local/x", "psql postgres://***@db.local/x"],
      ["open https://example.test/a@b", "open https://example.test/a@b"],
    ]);
  });

  test("secret-named query parameters, and only those", () => {
    masks([
      ["GET /cb?code=4/abc&state=1", "GET /cb?code=***&state=1"],
      ["GET /x?sig=abc&page=2", "GET /x?sig=***&page=2"],
      ["GET /x?page=2&sort=asc", "GET /x?page=2&sort=asc"],
    ]);
  });

  test("upper-case env assignments, also first on the line or after a pipe", () => {
    masks([
      ["API_URL=https://x.test npm start", "API_URL=*** npm start"],
      ["true|DB_PASS=pw run", "true|DB_PASS=*** run"],
      ["echo lower=case", "echo lower=case"],
    ]);
  });

  test("secret-named options with = or a space; a quoted value goes whole", () => {
    masks([
      ['login --client-secret "a b c" now', "login --client-secret *** now"],
      ["tool -token abc", "tool -token ***"],
      ["git log --author=ann", "git log --author=ann"],
    ]);
  });

  test("secret-named JSON and YAML fields", () => {
    masks([
      ['{"token": "abc", "page": 2}', '{"token": ***, "page": 2}'],
      ["db_password: hunter2", "db_password: ***"],
      ["title: hello", "title: hello"],
    ]);
  });

  test("well-known key shapes", () => {
    masks([
      ["key sk-abcdefgh1234", "key ***"],
      ["tok ghp_abcdefghijklmnop1234", "tok ***"],
      ["slack xoxb-1234-5678-abcd", "slack ***"],
      ["aws AKIAABCDEFGHIJKLMNOP", "aws ***"],
      ["jwt eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.sig", "jwt ***"],
      ["sk-short", "sk-short"],
    ]);
  });

  test("long hex, and long base64-like text that mixes cases and digits; paths stay", () => {
    masks([
      ["sha 0123456789abcdef0123456789abcdef", "sha ***"],
      ["hex 0123456789abcdef0123456789abcde", "hex 0123456789abcdef0123456789abcde"],
      ["blob Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRg", "blob ***"],
      ["path src/components/ProgressCardHeaderLine1.svelte", "path src/components/ProgressCardHeaderLine1.svelte"],
      ["word abcdefghijklmnopqrstuvwxyzabcdefgh", "word abcdefghijklmnopqrstuvwxyzabcdefgh"],
    ]);
  });
});
