import { expect } from "chai";
import http from "node:http";
import net from "node:net";
import { DogecoinRpcClient, RpcAbortedError } from "../../src/chain/dogecoin-rpc";

/**
 * DogecoinRpcClient's stop signal (issue 19, item 5): an aborted signal cuts the request in flight
 * and the back-off between retries, and every later call rejects at once, so a daemon's stop never
 * waits for a node.
 */
describe("DogecoinRpcClient stop signal", () => {
  it("abandons a call whose node never answers, long before its 30 s time-out", async () => {
    const sockets = new Set<net.Socket>();
    const server = http.createServer(() => {
      /* never answers */
    });
    server.on("connection", (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const controller = new AbortController();
      const client = new DogecoinRpcClient({
        url: `http://u:p@127.0.0.1:${(server.address() as net.AddressInfo).port}/`,
        signal: controller.signal,
      });
      const started = Date.now();
      const call = client.getBlockCount().then(
        () => null,
        (error: Error) => error,
      );
      setTimeout(() => controller.abort(), 200);
      const error = await call;
      expect(error).to.be.instanceOf(RpcAbortedError);
      expect(Date.now() - started).to.be.below(5_000);
      // Later calls do not even try.
      expect(
        await client.getBlockCount().then(
          () => null,
          (e: Error) => e,
        ),
      ).to.be.instanceOf(RpcAbortedError);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("abandons the back-off between retries of a refused connection", async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const controller = new AbortController();
    // Back-off of 20 s per retry: only the signal can end this call soon.
    const client = new DogecoinRpcClient({
      url: `http://127.0.0.1:${port}/`,
      retries: 5,
      retryBaseDelayMs: 20_000,
      retryMaxDelayMs: 20_000,
      signal: controller.signal,
    });
    const started = Date.now();
    const call = client.getBlockCount().then(
      () => null,
      (error: Error) => error,
    );
    setTimeout(() => controller.abort(), 300);
    expect(await call).to.be.instanceOf(RpcAbortedError);
    expect(Date.now() - started).to.be.below(5_000);
  });
});
