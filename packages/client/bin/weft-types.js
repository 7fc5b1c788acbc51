#!/usr/bin/env node
import '../dist/types-gen/cli.js';
