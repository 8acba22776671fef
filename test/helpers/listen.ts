/** Serving a test's HTTP app on a free loopback port. */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface LocalServer {
  server: http.Server;
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  base: string;
}

/**
 * Serves `app` (an Express app or any request handler) on 127.0.0.1 at a port the system picks; answers once it is
 * listening, or rejects with the listen error (the port, permissions). The caller closes `server`.
 */
export async function listenLocal(app: http.RequestListener): Promise<LocalServer> {
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error): void => {
      server.off("listening", listening);
      reject(error);
    };
    const listening = (): void => {
      server.off("error", failed);
      resolve();
    };
    server.once("error", failed);
    server.once("listening", listening);
    server.listen(0, "127.0.0.1");
  });
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
