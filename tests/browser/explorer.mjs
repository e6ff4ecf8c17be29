// The API Explorer (/explorer) in a real headless Chromium: Debian's
// /usr/bin/chromium driven by playwright-core, against the real `portos`
// binary. run.sh starts the servers and passes their addresses:
//
//   PORTOS_URL            a server without a password
//   PORTOS_LOCKED_URL     a server with PORTOS_TEST_PASSWORD set (optional)
//   EXPLORER_SCREENSHOT   where to write the screenshot (default docs/explorer.png)
//
// Every check reads what the page shows (or what the server recorded), and
// any failure makes the process exit non-zero.

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const BASE = required("PORTOS_URL");
const LOCKED = process.env.PORTOS_LOCKED_URL || "";
const PASSWORD = process.env.PORTOS_TEST_PASSWORD || "";
const SCREENSHOT = process.env.EXPLORER_SCREENSHOT || path.resolve(here, "../../docs/explorer.png");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const TIMEOUT = 15_000;

function required(name) {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is not set: run this through tests/browser/run.sh`);
    process.exit(2);
  }
  return value.replace(/\/$/, "");
}

/** A browser with a fresh, empty profile; closed and removed by the caller. */
async function launch() {
  const profile = mkdtempSync(path.join(tmpdir(), "portos-explorer-profile-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // Nothing beyond the servers under test (CI checks it: .ci/hermetic):
      // no name is resolved but loopback's, and none of the browser's own
      // services (media routing, translation, metrics, safe browsing) runs.
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
      "--disable-features=MediaRouter,DialMediaRouteProvider,OptimizationHints,Translate,AutofillServerCommunication,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions",
      "--disable-domain-reliability",
      "--disable-client-side-phishing-detection",
      "--safebrowsing-disable-auto-update",
      "--no-pings",
      "--disable-default-apps",
      "--metrics-recording-only",
    ],
    viewport: { width: 1280, height: 860 },
    colorScheme: "light",
    reducedMotion: "reduce",
  });
  context.setDefaultTimeout(TIMEOUT);
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Fails on any script error or console error, but the expected 404 of an
 *  absent event inventory (Chromium logs every failed resource load). */
function watch(page) {
  const problems = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const text = message.text();
    const url = message.location().url || "";
    const expected = /Failed to load resource/.test(text)
      && (/\/api\/api-docs\/events\.json$/.test(url) || /status of (401|403|422)/.test(text));
    if (!expected) problems.push(`console error: ${text} (${url})`);
  });
  return problems;
}

/** Waits until the element's text contains `expected`; the failure says what
 *  the page showed instead. */
async function expectText(locator, expected, timeout = TIMEOUT) {
  const deadline = Date.now() + timeout;
  let actual = "";
  for (;;) {
    actual = (await locator.count()) ? await locator.first().innerText().catch(() => "") : "<no element>";
    if (typeof expected === "string" ? actual.includes(expected) : expected.test(actual)) return actual;
    if (Date.now() > deadline) {
      assert.fail(`expected ${locator} to show ${JSON.stringify(String(expected))}, it shows ${JSON.stringify(actual)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits for the authentication badge to read exactly `label`
 *  ("logged in" is part of "not logged in", so text is not enough). */
async function expectAuth(page, label) {
  const badge = page.locator("#auth-state");
  try {
    await page.locator(`#auth-state[data-state="${label}"]`).waitFor({ state: "visible", timeout: TIMEOUT });
  } catch {
    assert.fail(`expected the authentication state "${label}", the page shows "${await badge.innerText()}"`);
  }
}

async function expectVisible(locator) {
  await locator.first().waitFor({ state: "visible", timeout: TIMEOUT });
}

async function expectCount(locator, count, timeout = TIMEOUT) {
  const deadline = Date.now() + timeout;
  let actual;
  while ((actual = await locator.count()) !== count) {
    if (Date.now() > deadline) assert.fail(`expected ${count} of ${locator}, found ${actual}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function openExplorer(page, base) {
  const response = await page.goto(`${base}/explorer`);
  assert.equal(response.status(), 200, "GET /explorer answers 200");
  await page.waitForSelector("body[data-ready='true']", { timeout: TIMEOUT });
}

const toolItem = (page, name) => page.locator(`#list-tools button[data-key="${name}"]`);
const opItem = (page, key) => page.locator(`#list-operations button[data-key="${key}"]`);

async function search(page, text) {
  const box = page.getByRole("searchbox", { name: "Search operations, tools and events" });
  await box.fill(text);
}

async function callSelectedTool(page) {
  const requestId = await page.getByLabel("requestId").inputValue();
  assert.match(requestId, /^[A-Za-z0-9._:-]{1,200}$/, "the generated requestId fits the contract");
  await page.getByRole("button", { name: "Call", exact: true }).click();
  await page.waitForFunction(
    () => {
      const state = document.getElementById("call-state");
      return state && state.dataset.state && state.dataset.state !== "calling…";
    },
    null,
    { timeout: TIMEOUT },
  );
  return requestId;
}

describe("the API Explorer, without a password", () => {
  let browser;
  let page;
  let problems;

  before(async () => {
    browser = await launch();
    page = await browser.context.newPage();
    problems = watch(page);
    await openExplorer(page, BASE);
  });

  after(async () => {
    await browser?.close();
  });

  it("is one HTML page served by the server, with no other origin allowed", async () => {
    const response = await fetch(`${BASE}/explorer`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(response.headers.get("content-security-policy") || "", /connect-src 'self'/);
    const html = await response.text();
    assert.match(html, /<title>PortOS API Explorer<\/title>/);
    assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href="(?!data:)/, "nothing loaded from elsewhere");
    assert.equal(await page.title(), "PortOS API Explorer");
    await expectAuth(page, "no password set");
  });

  it("finds time.now by searching “time”, and calls it: completed", async () => {
    await search(page, "time");
    await page.getByRole("tab", { name: /^Tools/ }).click();
    await expectVisible(toolItem(page, "time.now"));
    // The search filters: tools that do not mention "time" are gone.
    await expectCount(toolItem(page, "brain.capture"), 0);
    await expectText(page.locator("#search-summary"), "1 tool");

    await toolItem(page, "time.now").click();
    const detail = page.locator("#detail");
    await expectText(detail.locator("h2"), "time.now");
    await expectText(detail, "time_now"); // the provider name
    await expectText(detail, "Required capabilities");
    await expectText(page.locator("#tool-input-schema"), '"type": "object"');
    const args = page.getByLabel("Arguments (JSON)");
    assert.deepEqual(JSON.parse(await args.inputValue()), {}, "time.now has no required argument");

    const requestId = await callSelectedTool(page);
    await expectText(page.locator("#call-state"), "completed");
    await expectText(page.locator("#call-status"), "HTTP 200");
    const shown = JSON.parse(await page.locator("#call-response").innerText());
    assert.equal(shown.state, "completed");
    assert.equal(shown.name, "time.now");
    assert.equal(shown.requestId, requestId);
    assert.equal(typeof shown.result.iso, "string");

    // The server itself recorded this call under the page's requestId.
    const retained = await fetch(`${BASE}/api/cos/tools/calls/${encodeURIComponent(requestId)}`);
    assert.equal(retained.status, 200);
    assert.equal((await retained.json()).state, "completed");
    // A fresh requestId is ready for the next call.
    assert.notEqual(await page.getByLabel("requestId").inputValue(), requestId);

    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    console.log(`# screenshot: ${SCREENSHOT}`);
  });

  it("shows a refusal with its code, and never sends invalid JSON", async () => {
    let calls = 0;
    page.on("request", (request) => {
      if (request.url().endsWith("/api/cos/tools/call")) calls += 1;
    });
    await search(page, "capture");
    await toolItem(page, "brain.capture").click();
    const args = page.getByLabel("Arguments (JSON)");
    assert.deepEqual(JSON.parse(await args.inputValue()), { text: "" }, "a skeleton of the required properties");
    await expectText(page.locator("#detail"), "capability-grant");
    await expectText(page.locator("#detail"), "writePortos");

    await args.fill("{ not json");
    await page.getByRole("button", { name: "Call", exact: true }).click();
    await expectText(page.locator("#call-state"), "invalid");
    await expectText(page.locator("#call-message"), "not valid JSON");
    assert.equal(calls, 0, "invalid JSON is not sent");

    await args.fill('{"text": "from the explorer"}');
    await callSelectedTool(page);
    await expectText(page.locator("#call-state"), "refused");
    await expectText(page.locator("#call-status"), "HTTP 403 · TOOL_AUTH_REQUIRED");
    assert.equal(calls, 1);
  });

  it("finds GET /api/cos/tools by searching “catalog”, with its schemas and error codes", async () => {
    await search(page, "catalog");
    await page.getByRole("tab", { name: /^Operations/ }).click();
    const catalog = opItem(page, "GET /api/cos/tools");
    await expectVisible(catalog);
    await expectText(catalog.locator(".method"), "GET");
    assert.equal(await catalog.locator(".path").innerText(), "/api/cos/tools");
    await expectText(catalog, "Tool catalog");
    await expectCount(opItem(page, "POST /api/auth/login"), 0);

    await catalog.click();
    const detail = page.locator("#detail");
    await expectText(detail.locator("h2"), "/api/cos/tools");
    await expectText(detail, "authenticated-ui");
    await expectText(detail.locator("table"), "scope"); // a query parameter
    await expectText(detail.locator(".response[data-status='400']"), "VALIDATION_ERROR");
    // The 200 schema is shown with its $ref resolved.
    await expectText(detail.locator(".response[data-status='200'] pre"), '"x-schema": "Catalog"');
    await expectText(detail.locator(".response[data-status='200'] pre"), '"tools"');
  });

  it("moves between tabs with the arrow keys, and / goes back to the search box", async () => {
    await page.getByRole("tab", { name: /^Operations/ }).focus();
    await page.keyboard.press("ArrowRight");
    assert.equal(await page.getByRole("tab", { name: /^Tools/ }).getAttribute("aria-selected"), "true");
    assert.equal(await page.evaluate(() => document.activeElement.id), "tab-tools");
    await page.keyboard.press("End");
    assert.equal(await page.evaluate(() => document.activeElement.id), "tab-events");
    await page.keyboard.press("ArrowLeft");
    assert.equal(await page.evaluate(() => document.activeElement.id), "tab-tools");
    await page.keyboard.press("/");
    assert.equal(await page.evaluate(() => document.activeElement.id), "search");
  });

  it("lists the events the server declares, with their payload schemas", async () => {
    await search(page, "");
    await page.getByRole("tab", { name: /^Events/ }).click();
    const panel = page.locator("#panel-events");
    await expectVisible(panel);
    // What the server publishes decides what the page must show.
    const answer = await fetch(`${BASE}/api/api-docs/events.json`);
    const events = answer.ok ? ((await answer.json()).events || []) : [];
    if (events.length === 0) {
      await expectText(panel, "No events");
      await expectCount(page.locator("#list-events li"), 0);
      return;
    }
    await expectCount(page.locator("#list-events li"), events.length);
    for (const event of events) await expectVisible(page.locator(`#list-events button[data-key="${event.event}"]`));
    const withPayload = events.find((e) => e.payloadSchemas && Object.keys(e.payloadSchemas).length) || events[0];
    await page.locator(`#list-events button[data-key="${withPayload.event}"]`).click();
    await expectText(page.locator("#detail h2"), withPayload.event);
    for (const direction of Object.keys(withPayload.payloadSchemas || {})) {
      await expectText(page.locator(`#detail .event-payload[data-direction="${direction}"]`), '"type"');
    }
  });

  it("says clearly “no events” when the event inventory is absent or empty", async () => {
    for (const [label, reply] of [
      ["absent (404)", { status: 404, contentType: "application/json", body: '{"error":"Route not found","code":"NOT_FOUND","timestamp":0}' }],
      ["empty", { status: 200, contentType: "application/json", body: '{"events":[]}' }],
    ]) {
      const other = await browser.context.newPage();
      const otherProblems = watch(other);
      await other.route("**/api/api-docs/events.json", (route) => route.fulfill(reply));
      await openExplorer(other, BASE);
      await other.getByRole("tab", { name: /^Events/ }).click();
      const panel = other.locator("#panel-events");
      await expectVisible(panel);
      await expectText(panel.locator("#empty-events"), /^No events/);
      await expectCount(other.locator("#list-events li"), 0);
      assert.equal(await other.locator("#count-events").innerText(), "0", label);
      await other.close();
      problems.push(...otherProblems);
    }
  });

  it("had no script or console errors", () => {
    assert.deepEqual(problems, []);
  });
});

describe("the API Explorer, with a password", { skip: LOCKED ? false : "PORTOS_LOCKED_URL is not set" }, () => {
  let browser;
  let page;
  let problems;

  before(async () => {
    assert.ok(PASSWORD, "PORTOS_TEST_PASSWORD is set");
    browser = await launch();
    page = await browser.context.newPage();
    problems = watch(page);
    // The page is always public (static, no data), so it loads without a
    // session and says so; then log in from it, as a script on the page would.
    await openExplorer(page, LOCKED);
    await expectAuth(page, "not logged in");
    const status = await page.evaluate(async (password) => {
      const response = await fetch("/api/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ password }),
      });
      return response.status;
    }, PASSWORD);
    assert.equal(status, 200, "login from the browser");
    await openExplorer(page, LOCKED);
  });

  after(async () => {
    await browser?.close();
  });

  it("shows the session, logs out, refuses a wrong password and logs in again", async () => {
    await expectAuth(page, "logged in");
    await expectVisible(toolItem(page, "time.now").or(page.locator("#list-operations li")));
    await page.getByRole("button", { name: "Log out", exact: true }).click();
    await expectAuth(page, "not logged in");
    const password = page.getByLabel("Instance password");
    await expectVisible(password);

    // Without the session the API refuses, and the page says so.
    await search(page, "time");
    await page.getByRole("tab", { name: /^Tools/ }).click();
    await toolItem(page, "time.now").click();
    await callSelectedTool(page);
    await expectText(page.locator("#call-state"), "refused");
    await expectText(page.locator("#call-status"), "HTTP 401 · AUTH_REQUIRED");

    await password.fill("not the password");
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await expectText(page.locator("#login-error"), "Wrong password");
    await expectAuth(page, "not logged in");

    await password.fill(PASSWORD);
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await expectAuth(page, "logged in");
    assert.equal(await page.locator("#login-form").isHidden(), true);
  });

  it("calls a tool that writes, as the logged-in user: completed", async () => {
    await search(page, "capture");
    await page.getByRole("tab", { name: /^Tools/ }).click();
    await toolItem(page, "brain.capture").click();
    await page.getByLabel("Arguments (JSON)").fill('{"text": "written from the API Explorer"}');
    const requestId = await callSelectedTool(page);
    await expectText(page.locator("#call-state"), "completed");
    const basic = `Basic ${Buffer.from(`explorer:${PASSWORD}`).toString("base64")}`;
    const retained = await fetch(`${LOCKED}/api/cos/tools/calls/${encodeURIComponent(requestId)}`, {
      headers: { authorization: basic },
    });
    assert.equal(retained.status, 200);
    assert.equal((await retained.json()).state, "completed");
  });

  it("had no script or console errors", () => {
    assert.deepEqual(problems, []);
  });
});
