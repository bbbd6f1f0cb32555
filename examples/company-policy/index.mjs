// The pack's manifest (package.json → airlock.rules, airlock.settings) is what it brings; this
// module only makes it a package the loader lists, checks and fails closed on like any
// extension (`airlock extensions`, `extensions info`). It registers nothing.
export default { name: 'company-policy', setup() {} };
