// A real OpenID Connect provider for the sign-in tests: panva's oidc-provider (certified), with
// its development login form, which accepts any password for the accounts named below. Never a
// production identity provider: the tests start it on 127.0.0.1 and stop it.
//
// Env: PORT, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI, and ACCOUNTS — JSON {login: {email,
// email_verified, name}}; a login not listed signs in with no e-mail claim at all.
import Provider from "oidc-provider";

const port = Number(process.env.PORT);
const accounts = JSON.parse(process.env.ACCOUNTS || "{}");

const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [
    {
      client_id: process.env.CLIENT_ID,
      client_secret: process.env.CLIENT_SECRET,
      redirect_uris: [process.env.REDIRECT_URI],
      grant_types: ["authorization_code"],
      response_types: ["code"],
    },
  ],
  claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
  async findAccount(ctx, id) {
    return {
      accountId: id,
      async claims() {
        return { sub: id, ...(accounts[id] || {}) };
      },
    };
  },
  // A firm's own SSO asks no consent for its own portal: grant the requested scopes at once.
  async loadExistingGrant(ctx) {
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope("openid email profile");
    await grant.save();
    return grant;
  },
  pkce: { required: () => true },
  cookies: { keys: ["alphadesk-test-only"] },
  features: { devInteractions: { enabled: true } },
});

provider.listen(port, "127.0.0.1", () => {
  console.log(`oidc-provider listening on ${port}`);
});
