// The launchpad's published client types. In this repository they are read from shared/openapi/ (always
// the current document); the package's build (build-openapi.js) puts the file itself in dist/openapi/.
export type { components, paths } from "../../../../shared/openapi/launchpad";
