// cdx_validate.mjs FILE...: check CycloneDX documents that mapscope wrote
// with the clients a consumer of them uses, not with our own reading of the
// specifications:
//   - strict JSON validation of CycloneDX 1.6 by @cyclonedx/cyclonedx-library
//     (its JsonStrictValidator: the 1.6 schema with no unknown properties,
//     formats checked by ajv); the document must say specVersion 1.6;
//   - every package URL in the document (a "purl" anywhere: components,
//     metadata.component, nested components; and an evidence identity whose
//     field is "purl") parsed by packageurl-js and written back: the result
//     must be the same string, that is the purl is in its canonical form.
// Every failure is printed, prefixed with the file's name.  Exit 0 when
// every file passes, 1 when one does not, 2 when the clients cannot be
// loaded (./setup.sh installs them: npm ci in tests/js).
//
// The clients are looked up in $MS_NODE_MODULES, else in tests/js/node_modules
// beside this script; tests/js/package-lock.json pins their versions.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const modules = process.env.MS_NODE_MODULES ||
  join(dirname(fileURLToPath(import.meta.url)), 'js', 'node_modules')
// Resolving from a file inside the folder searches the folder itself first.
const require = createRequire(join(modules, 'cdx_validate.cjs'))

let CDX, PackageURL
try {
  CDX = require('@cyclonedx/cyclonedx-library')
  PackageURL = require('packageurl-js').PackageURL
} catch (err) {
  console.error(`cdx_validate: cannot load the validator from ${modules}: ${err.message.split('\n')[0]}`)
  console.error('cdx_validate: run ./setup.sh (it installs nodejs, npm and the pinned clients with npm ci in tests/js)')
  process.exit(2)
}

// purls DOC: every [where, purl] in DOC, wherever the document nests them.
function purls (node, where, out) {
  if (Array.isArray(node)) {
    node.forEach((v, i) => purls(v, `${where}/${i}`, out))
  } else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'purl' && typeof value === 'string') {
        out.push([`${where}/purl`, value])
      } else if (key === 'concludedValue' && node.field === 'purl' && typeof value === 'string') {
        out.push([`${where}/concludedValue`, value])
      } else {
        purls(value, `${where}/${key}`, out)
      }
    }
  }
  return out
}

// roundTrip PURL: null when packageurl-js gives PURL back unchanged, else why not.
function roundTrip (purl) {
  let again
  try {
    again = PackageURL.fromString(purl).toString()
  } catch (err) {
    return `packageurl-js refuses it: ${err.message}`
  }
  return again === purl ? null : `not canonical: packageurl-js writes it ${again}`
}

async function check (file, validator) {
  const fails = []
  let text, doc
  try {
    text = readFileSync(file, 'utf8')
    doc = JSON.parse(text)
  } catch (err) {
    return [`not a JSON document: ${err.message}`]
  }
  if (doc === null || typeof doc !== 'object' || doc.bomFormat !== 'CycloneDX' || doc.specVersion !== '1.6') {
    fails.push(`not a CycloneDX 1.6 document (bomFormat ${JSON.stringify(doc?.bomFormat)}, specVersion ${JSON.stringify(doc?.specVersion)})`)
  }
  const errors = await validator.validate(text)
  for (const e of errors ?? []) {
    fails.push(`strict schema: ${e.instancePath || '/'}: ${e.message} ${JSON.stringify(e.params)}`)
  }
  const found = purls(doc, '', [])
  for (const [where, purl] of found) {
    const why = roundTrip(purl)
    if (why) fails.push(`purl ${purl} at ${where}: ${why}`)
  }
  if (fails.length === 0) {
    console.log(`cdx_validate: ${file}: valid CycloneDX 1.6 (strict), ${found.length} purls canonical`)
  }
  return fails
}

const files = process.argv.slice(2)
if (files.length === 0) {
  console.error('usage: cdx_validate.mjs FILE...')
  process.exit(2)
}
const validator = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot6)
let bad = 0
for (const file of files) {
  let fails
  try {
    fails = await check(file, validator)
  } catch (err) {
    // A missing optional dependency of the library (ajv and its formats).
    console.error(`cdx_validate: the validator cannot run: ${err.message}; run ./setup.sh`)
    process.exit(2)
  }
  for (const f of fails) console.log(`cdx_validate: FAIL: ${file}: ${f}`)
  if (fails.length) bad++
}
process.exit(bad ? 1 : 0)
