#!/usr/bin/env node
// `npx dogeos`: registers tsx's CommonJS hooks (tsx is a dependency) so the TypeScript CLI, the
// daemons and the scripts run from a checkout without a build step, then runs bin/dogeos.ts.
"use strict";
require("tsx/cjs");
require("./dogeos.ts").main();
