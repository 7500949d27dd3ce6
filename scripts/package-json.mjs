// Writes the package's package.json: the template with the version of the Rust crate.
import { readFileSync, writeFileSync } from 'node:fs';

const [template, cargoToml, out] = process.argv.slice(2);
const pkg = JSON.parse(readFileSync(template, 'utf8'));
const version = /^version\s*=\s*"([^"]+)"/m.exec(readFileSync(cargoToml, 'utf8'))?.[1];
if (!version) throw new Error(`no version in ${cargoToml}`);
pkg.version = version;
writeFileSync(out, JSON.stringify(pkg, null, 2) + '\n');
