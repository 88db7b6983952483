// Resolve @mailroom/* through node_modules as an installed copy would be: vitest then loads them as
// external packages, as in a user's project, instead of transforming the workspace's dist folders.
export default { resolve: { preserveSymlinks: true } };
