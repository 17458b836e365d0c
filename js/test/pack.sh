#!/usr/bin/env bash
# `npm pack` gives a tarball that installs offline into a fresh project and
# runs there (the package has no dependencies: nothing is downloaded).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tarball=$(npm pack --silent --pack-destination "$work")
mkdir "$work/app"
cd "$work/app"
npm init -y >/dev/null
npm install --offline --no-audit --no-fund "$work/$tarball" >/dev/null
test -f node_modules/crowdsteer/src/index.d.ts
cat > main.mjs <<'JS'
import { init, Target } from 'crowdsteer';
const cs = await init();
const crowd = new cs.Crowd(4, 2);
crowd.px.set([0, 0, 5, -3]);
for (let i = 0; i < 60; i++)
  crowd.seek(Target.point([10, 0]), { max_speed: 0.5 }).integrate({ max_speed: 0.5 });
if (![...crowd.px].every((x) => Math.abs(x - 10) < 0.5)) throw new Error('not at the goal');
console.log(`${process.argv[2]}: crowdsteer ${cs.version()} (${cs.active_isa()}) installed offline; 4 agents at the goal`);
JS
node main.mjs "$tarball"
# The README's quick start, word for word.
node -e "import('crowdsteer').then(async ({init}) => console.log((await init()).active_isa()))"
