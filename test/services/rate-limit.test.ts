import { expect } from "chai";
import express from "express";
import type { Server } from "node:http";
import { rateLimited } from "../../src/services/http/rate-limit";
import { listenLocal } from "../helpers/listen";

describe("rateLimited", () => {
  let server: Server;
  let base: string;

  before(async () => {
    const app = express();
    app.set("trust proxy", "loopback");
    app.post("/write", rateLimited({ name: "test writes", limit: 3 }), (_req, res) => {
      res.json({ ok: true });
    });
    app.post("/off", rateLimited({ name: "unlimited", limit: 0 }), (_req, res) => {
      res.json({ ok: true });
    });
    ({ server, base } = await listenLocal(app));
  });
  after(() => {
    server.close();
    server.closeAllConnections();
  });

  async function post(path: string, forwardedFor: string) {
    const response = await fetch(`${base}${path}`, { method: "POST", headers: { "X-Forwarded-For": forwardedFor } });
    return { status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.json() };
  }

  it("answers 429 RATE_LIMITED with Retry-After once a client passes its limit, and keeps answering other clients", async () => {
    const burst = await Promise.all(Array.from({ length: 5 }, () => post("/write", "203.0.113.7")));
    const statuses = burst.map((answer) => answer.status).sort();
    expect(statuses).to.deep.equal([200, 200, 200, 429, 429]);
    const refused = burst.find((answer) => answer.status === 429)!;
    expect(Number(refused.retryAfter)).to.be.within(1, 60);
    expect(refused.body.error.code).to.equal("RATE_LIMITED");
    expect(refused.body.error.details).to.deep.include({ limit_name: "test writes", limit: 3, window_ms: 60_000 });
    expect((await post("/write", "203.0.113.8")).status).to.equal(200);
  });

  it("counts IPv6 clients by their /56 so that one host cannot rotate addresses in its prefix", async () => {
    for (let i = 0; i < 3; i++) expect((await post("/write", `2001:db8:0:1::${i + 1}`)).status).to.equal(200);
    expect((await post("/write", "2001:db8:0:2::99")).status).to.equal(429);
    expect((await post("/write", "2001:db8:1:0::1")).status).to.equal(200);
  });

  it("lets every request through when the limit is 0", async () => {
    for (let i = 0; i < 10; i++) expect((await post("/off", "203.0.113.9")).status).to.equal(200);
  });
});
