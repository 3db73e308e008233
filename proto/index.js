// The sml.v1 static module with 64-bit integers decoded as JS numbers instead of Long
// objects: job ids and epoch-ms dates stay far below 2^53, and numbers turn into JSON as is.
'use strict';
const $protobuf = require('protobufjs/minimal');
$protobuf.util.Long = undefined;
$protobuf.configure();
module.exports = require('./generated/index.js');
// Reflection of the same schemas (generated/descriptor.json), built on first use.
let reflected;
Object.defineProperty(module.exports, 'reflection', {
  enumerable: false,
  get: () => (reflected ??= require('protobufjs/light').Root.fromJSON(require('./generated/descriptor.json'))),
});
