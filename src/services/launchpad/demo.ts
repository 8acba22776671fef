/**
 * The launchpad's demo (`npm start`, the launchpad daemon's --demo): two collections listed by the
 * demo key's address (their creator) through the service's own listing (app.launchpad.list, what
 * POST /collections calls once the listing is allowed), when they are not listed yet. The free one
 * is listed only when the operator key is configured: the operator pays a free collection's
 * inscriptions, and the daemon without the key could not list one over its API either.
 */
import type { LaunchpadApp } from "./app";

/** The demo collections: one priced (1 DOGE), one free. */
export const LAUNCHPAD_DEMO_COLLECTIONS = [
  { slug: "demo-pups", name: "Demo Pups", priceKoinu: 100_000_000n, maxSupply: 100 },
  { slug: "demo-free", name: "Demo Free Bones", priceKoinu: 0n, maxSupply: 50 },
] as const;

/** Lists the demo collections missing; answers the slugs it listed. */
export async function seedLaunchpadDemo(
  launchpad: Pick<LaunchpadApp["launchpad"], "collections" | "list">,
  options: { creatorAddress: string; withOperatorKey: boolean },
): Promise<string[]> {
  const listed: string[] = [];
  for (const demo of LAUNCHPAD_DEMO_COLLECTIONS) {
    if (demo.priceKoinu === 0n && !options.withOperatorKey) continue;
    if (launchpad.collections.get(demo.slug)) continue;
    await launchpad.list({ ...demo, creatorAddress: options.creatorAddress, listedBy: options.creatorAddress });
    listed.push(demo.slug);
  }
  return listed;
}
