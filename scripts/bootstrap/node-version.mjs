// Is this Node new enough for the workspace? Read from package.json's engines.node, so the
// bootstrap and npm's own engine check never disagree. Written for any Node that runs ES modules:
// it must load on the old Node it turns away.

/**
 * Undefined when `version` satisfies `engines` (of the form `>=20.19` or `>=20.19.0`), else the
 * message to print: what runs, what is needed, how to get it.
 *
 * @example
 * nodeVersionProblem('18.19.0', '>=20.19', '/usr/bin/node'); // 'Airlock needs Node 20.19 or later; …'
 */
export function nodeVersionProblem(version, engines, execPath) {
  const wanted = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(String(engines).trim());
  if (wanted === null) {
    return `package.json's engines.node is ${JSON.stringify(engines)}; the bootstrap reads only the form ">=MAJOR.MINOR" (e.g. ">=20.19"). Write it that way.`;
  }
  const need = [Number(wanted[1]), Number(wanted[2]), Number(wanted[3] || 0)];
  const have = String(version).split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if ((have[i] || 0) > need[i]) return undefined;
    if ((have[i] || 0) < need[i]) {
      const shown = need[2] === 0 ? `${need[0]}.${need[1]}` : need.join('.');
      return (
        `Airlock needs Node ${shown} or later; this is Node ${version} (${execPath}). ` +
        `Install a newer Node (https://nodejs.org, or \`nvm install 20\` with nvm), make sure \`node --version\` shows it, then run the command again. Nothing was installed or changed.`
      );
    }
  }
  return undefined;
}
