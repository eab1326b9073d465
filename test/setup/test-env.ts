/** The database every spec file clones its own from. */
export const TEMPLATE_DATABASE = 'ntf_test_template';
