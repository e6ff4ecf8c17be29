// The Socket.IO events of portos through the official socket.io-client, as a
// web UI would use them: subscribe, hear finished tool calls and catalog
// changes, unsubscribe; and the password gate in front of the transport.
//
// Environment (tests/support/with-servers.sh sets it):
//   PORTOS_URL            a server without a password
//   PORTOS_LOCKED_URL     a server with PORTOS_TEST_PASSWORD set
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { io } from "socket.io-client";

const BASE = process.env.PORTOS_URL;
const LOCKED = process.env.PORTOS_LOCKED_URL;
const PASSWORD = process.env.PORTOS_TEST_PASSWORD;
assert.ok(BASE && LOCKED && PASSWORD, "run through tests/support/with-servers.sh");

const sockets = [];
after(() => sockets.forEach((socket) => socket.close()));

function connect(base, options = {}) {
  const socket = io(base, { reconnection: false, timeout: 10_000, ...options });
  sockets.push(socket);
  return socket;
}

/** The next `event` on `socket` (optionally the first matching `test`), or a timeout. */
function next(socket, event, test = () => true, ms = 10_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.off(event, listener);
      reject(new Error(`no ${event} within ${ms} ms`));
    }, ms);
    function listener(payload) {
      if (!test(payload)) return;
      clearTimeout(timer);
      socket.off(event, listener);
      resolve(payload);
    }
    socket.on(event, listener);
  });
}

function connected(socket) {
  return new Promise((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("connect_error", reject);
  });
}

async function callTool(base, requestId, name, headers = {}) {
  const response = await fetch(`${base}/api/cos/tools/call`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ requestId, name }),
  });
  return response.status;
}

for (const transports of [["polling", "websocket"], ["websocket"]]) {
  describe(`events over ${transports.join(" then ")}`, () => {
    it("announces finished calls and catalog changes to subscribers only", async () => {
      const socket = connect(BASE, { transports });
      await connected(socket);
      const subscribing = next(socket, "cos:tools:subscribed");
      socket.emit("cos:tools:subscribe");
      assert.deepEqual(await subscribing, { room: "cos:tools" });

      const requestId = `socket-client-${transports.length}-${Date.now()}`;
      const called = next(socket, "cos:tools:called", (p) => p.requestId === requestId);
      assert.equal(await callTool(BASE, requestId, "time.now"), 200);
      const announcement = await called;
      assert.equal(announcement.name, "time.now");
      assert.equal(announcement.state, "completed");
      assert.equal(announcement.result, undefined, "results are not broadcast");

      const changed = next(socket, "cos:tools:catalog-changed");
      const put = await fetch(`${BASE}/api/cos/mind/capabilities`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ readPortos: true }),
      });
      assert.equal(put.status, 200);
      assert.deepEqual(await changed, { reason: "persistentMindCapabilities" });

      const leaving = next(socket, "cos:tools:unsubscribed");
      socket.emit("cos:tools:unsubscribe");
      assert.deepEqual(await leaving, { room: "cos:tools" });
      const quietId = `${requestId}-quiet`;
      const silence = next(socket, "cos:tools:called", (p) => p.requestId === quietId, 1_000);
      assert.equal(await callTool(BASE, quietId, "time.now"), 200);
      await assert.rejects(silence, /no cos:tools:called/);
    });
  });
}

describe("events with a password", () => {
  it("refuses a client without credentials", async () => {
    const socket = connect(LOCKED, { transports: ["polling"] });
    await assert.rejects(connected(socket));
    assert.equal(socket.connected, false);
  });

  it("accepts the password and announces calls", async () => {
    const authorization = `Basic ${Buffer.from(`me:${PASSWORD}`).toString("base64")}`;
    const socket = connect(LOCKED, { extraHeaders: { authorization } });
    await connected(socket);
    const subscribing = next(socket, "cos:tools:subscribed");
    socket.emit("cos:tools:subscribe");
    await subscribing;
    const requestId = `socket-client-locked-${Date.now()}`;
    const called = next(socket, "cos:tools:called", (p) => p.requestId === requestId);
    assert.equal(await callTool(LOCKED, requestId, "time.now", { authorization }), 200);
    assert.equal((await called).state, "completed");
  });
});
