#!/usr/bin/env node
'use strict';
// Runs the TypeScript CLI directly; tsx compiles on the fly so no build step is needed.
require('tsx/cjs/api').register();
require('../cli/main.ts');
