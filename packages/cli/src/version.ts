/** The CLI's version, as `airlock --version` and `airlock doctor` print it (package.json's). */
export const CLI_VERSION = '1.0.0';
