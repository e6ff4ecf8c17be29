// A real authorization server for remote mode's tests: oidc-provider (an
// OpenID-certified implementation, pinned in package-lock.json) on a
// loopback port, with dynamic client registration, PKCE, resource
// indicators (RFC 8707) and JWT access tokens (RFC 9068) for the one
// resource it is told of. The person's steps are automated: the login
// interaction signs `user-1` in, and the consent interaction grants the
// scopes asked for (what a person would click).
//
//   ISSUER_PORT=… RESOURCE=http://127.0.0.1:…/mcp \
//     SCOPES='lab:read lab:write' node issuer.mjs
//
// Prints `issuer listening on <url>` once it answers.

import http from 'node:http';

import { exportJWK, generateKeyPair } from 'jose';
import Provider, { errors } from 'oidc-provider';

const port = Number(process.env.ISSUER_PORT);
const resource = process.env.RESOURCE;
const scopes = (process.env.SCOPES ?? '').split(' ').filter(Boolean);
// Another resource this server issues tokens for: what a token for
// somebody else's server looks like.
const elsewhere = 'https://elsewhere.example/mcp';
const issuer = `http://127.0.0.1:${port}`;

// Signing keys made for this run: RS256 (oidc-provider's default for
// access tokens) and ES256.
async function signingKey(alg, kid) {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return { ...(await exportJWK(privateKey)), alg, kid, use: 'sig' };
}
const jwks = { keys: [await signingKey('RS256', 'rs-1'), await signingKey('ES256', 'es-1')] };

const provider = new Provider(issuer, {
  jwks,
  clients: [],
  // The resource's scopes, so that clients may register for them.
  scopes: ['openid', 'offline_access', ...scopes],
  cookies: { keys: ['remote-oauth-test-cookie-key'] },
  pkce: { required: () => true },
  findAccount: (_ctx, accountId) => ({ accountId, claims: () => ({ sub: accountId }) }),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => {
        if (indicator !== resource && indicator !== elsewhere) {
          throw new errors.InvalidTarget();
        }
        return {
          scope: scopes.join(' '),
          audience: indicator,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 300,
          jwt: { sign: { alg: process.env.ACCESS_TOKEN_ALG ?? 'RS256' } },
        };
      },
    },
  },
});

// What a person would do at each prompt: sign in as `user-1`; consent to
// every scope asked for, on the resource asked for.
async function interactionResult(req, res) {
  const interaction = await provider.interactionDetails(req, res);
  const { prompt, params, session } = interaction;
  if (prompt.name === 'login') {
    return { login: { accountId: 'user-1' } };
  }
  const grant = interaction.grantId
    ? await provider.Grant.find(interaction.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = prompt.details;
  if (missingOIDCScope) {
    grant.addOIDCScope(missingOIDCScope.join(' '));
  }
  if (missingOIDCClaims) {
    grant.addOIDCClaims(missingOIDCClaims);
  }
  for (const [indicator, granted] of Object.entries(missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, granted.join(' '));
  }
  return { consent: { grantId: await grant.save() } };
}

const callback = provider.callback();
const server = http.createServer(async (req, res) => {
  if (req.url.startsWith('/interaction/')) {
    try {
      await provider.interactionFinished(req, res, await interactionResult(req, res), {
        mergeWithLastSubmission: true,
      });
    } catch (error) {
      res.statusCode = 400;
      res.end(String(error));
    }
    return;
  }
  callback(req, res);
});
server.listen(port, '127.0.0.1', () => {
  console.log(`issuer listening on ${issuer}`);
});
