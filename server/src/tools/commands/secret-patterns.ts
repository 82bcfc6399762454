/**
 * What marks an environment variable as a secret, as data: words in its name, and the published
 * formats of credentials in its value. `env.ts` applies them. Each value format names its
 * source, the vendor's documentation where it describes the format, else the open rule set that
 * does (gitleaks, MIT; secretlint, MIT). None of those rule sets ships as data usable from here
 * (secretlint's rules are code run by its async linter, gitleaks is a Go program), so this table
 * is kept by hand: a new format is a row here and a sample in
 * server/test/tools-command-env-formats.test.ts (the test fails for a row without one).
 *
 * The formats are meant for one value at a time and favour distinctive prefixes, so that a
 * path, a UUID, a git sha or a base64 digest never matches; a secret with no recognisable shape
 * is caught by its variable's name or not at all.
 */

/** A credential format recognised anywhere in a variable's value. */
export interface SecretFormat {
  /** A short name, for tests and the reader. */
  name: string;
  pattern: RegExp;
}

export const SECRET_FORMATS: readonly SecretFormat[] = [
  // ghp_ (classic PAT), gho_ (OAuth), ghu_ (user-to-server), ghs_ (server-to-server), ghr_
  // (refresh), github_pat_ (fine-grained). docs.github.com: "About authentication to GitHub",
  // GitHub's token formats.
  { name: 'github', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/ },
  // glpat- and the other GitLab prefixes (OAuth secret, deploy, runner, CI/CD job, trigger,
  // feed, incoming mail, agent, SCIM, feature flags, workspace). docs.gitlab.com: "GitLab token
  // overview", Token prefixes.
  {
    name: 'gitlab',
    pattern: /\bgl(?:pat|oas|dt|rt|rtr|cbt|ptt|ft|imt|agent|soat|ffct|wt)-[A-Za-z0-9_-]{20,}/,
  },
  // npm_ + 36. github.blog changelog 2021-09-23, "npm has a new access token format".
  { name: 'npm', pattern: /\bnpm_[A-Za-z0-9]{36}/ },
  // xoxb- (bot), xoxp- (user), xoxa-/xoxr- (refresh), xoxe- (rotating), xoxc-/xoxd- (browser
  // session), xoxo-/xoxs-, xapp- (app-level). docs.slack.dev: "Token types".
  { name: 'slack-token', pattern: /\bxox[abcdeoprs]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{10,}/ },
  // https://hooks.slack.com/services/T…/B…/… (and workflows/, triggers/): the URL is the secret.
  // docs.slack.dev: "Sending messages using incoming webhooks".
  { name: 'slack-webhook', pattern: /\bhooks\.slack\.com\/(?:services|workflows|triggers)\/[\w/+-]{20,}/ },
  // https://discord.com/api/webhooks/{id}/{token} (also discordapp.com, ptb./canary., /api/vN/).
  // discord.com/developers/docs: Webhook resource, "Execute Webhook".
  { name: 'discord-webhook', pattern: /\bdiscord(?:app)?\.com\/api\/(?:v\d+\/)?webhooks\/\d+\/[\w-]{20,}/ },
  // https://{tenant}.webhook.office.com/webhookb2/…. learn.microsoft.com: Microsoft Teams,
  // "Create an Incoming Webhook". (Anchored on the fixed part: a leading [\w-]+ for the tenant
  // would make a long value of hyphenated words take quadratic time.)
  { name: 'teams-webhook', pattern: /\.webhook\.office\.com\/webhookb2\/\S{20,}/i },
  // {bot id}:{35 characters}, e.g. 123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11. core.telegram.org:
  // Bot API, "Authorizing your bot"; the leading A of the secret half is gitleaks'
  // telegram-bot-api-token (every issued token starts so), which keeps host:port-like values out.
  // Also matches inside https://api.telegram.org/bot{token}/….
  { name: 'telegram-bot', pattern: /(?<!\d)\d{5,16}:A[\w-]{34}(?![\w-])/ },
  // AIza + 35 (API key), GOCSPX- (OAuth client secret), ya29. (OAuth access token).
  // cloud.google.com: "Manage API keys"; developers.google.com: "Using OAuth 2.0"; the exact
  // shapes as in gitleaks' gcp-api-key.
  { name: 'google', pattern: /\bAIza[\w-]{35}|\bGOCSPX-[\w-]{20,}|\bya29\.[\w-]{20,}/ },
  // AKIA (long-term access key id), ASIA (temporary, from STS), ABIA (STS bearer), ACCA
  // (context-specific) + 16. docs.aws.amazon.com: IAM identifiers, "Unique identifier prefixes".
  { name: 'aws-access-key-id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/ },
  // sk-… covers OpenAI (sk-proj-, sk-svcacct-, sk-admin-), Anthropic (sk-ant-api03-,
  // sk-ant-admin01-), OpenRouter (sk-or-v1-), DeepSeek. platform.openai.com: API reference,
  // Authentication; docs.anthropic.com: API overview.
  { name: 'sk-api-key', pattern: /\bsk-[\w-]{20,}/ },
  // sk_live_/sk_test_ (secret), rk_live_/rk_test_ (restricted), whsec_ (webhook signing).
  // docs.stripe.com: "API keys"; "Webhooks", Verify events.
  { name: 'stripe', pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9+/]{24,}/ },
  // hf_ (user access token), api_org_ (organization token). huggingface.co/docs/hub:
  // "User access tokens"; the lengths as in gitleaks' huggingface-access-token.
  { name: 'huggingface', pattern: /\bhf_[A-Za-z0-9]{30,}|\bapi_org_[A-Za-z0-9]{30,}/ },
  // pypi- + a macaroon, whose serialisation starts AgE. pypi.org/help: "How can I use API tokens
  // to authenticate with PyPI?"; shape as in gitleaks' pypi-upload-token.
  { name: 'pypi', pattern: /\bpypi-AgE[\w-]{50,}/ },
  // SG.{22}.{43}. twilio.com/docs/sendgrid: "API Keys"; shape as in gitleaks' sendgrid-api-token.
  { name: 'sendgrid', pattern: /\bSG\.[\w-]{16,32}\.[\w-]{30,64}/ },
  // Storage (AccountKey=, SharedAccessSignature=) and Service Bus / Event Hubs
  // (SharedAccessKey=) connection strings. learn.microsoft.com: "Configure Azure Storage
  // connection strings"; Service Bus, "Shared Access Signatures".
  {
    name: 'azure-connection-string',
    pattern: /(?:^|;)\s*(?:AccountKey|SharedAccessKey|SharedAccessSignature)\s*=\s*[^;\s]/i,
  },
  // ADO.NET / ODBC connection strings: Password= or Pwd=. learn.microsoft.com:
  // SqlConnection.ConnectionString.
  { name: 'connection-string-password', pattern: /(?:^|;)\s*(?:Password|Pwd)\s*=\s*[^;\s]/i },
  // Entra ID (Azure AD) client secrets: three characters, a digit, Q~, then 31–34.
  // Not documented by Microsoft; shape from gitleaks' azure-ad-client-secret.
  { name: 'azure-ad-client-secret', pattern: /(?<![\w~.-])[\w~.]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])/ },
  // header.payload.signature, base64url of JSON objects, so both start eyJ ({"). RFC 7519
  // (JWT) §3 with RFC 7515 (JWS) §7.1, compact serialisation.
  // (Starting only where a run of [\w-] starts keeps a long eyJ-eyJ-… value linear.)
  { name: 'jwt', pattern: /(?<![\w-])eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*/ },
  // sk.eyJ… (Mapbox secret token; pk. tokens are public). docs.mapbox.com: "Access tokens".
  { name: 'mapbox', pattern: /\bsk\.eyJ[\w-]{10,}\.[\w-]{10,}/ },
  // ops_eyJ… (1Password service account token). developer.1password.com: "Service accounts".
  { name: '1password-service-account', pattern: /\bops_eyJ[\w+/=-]{100,}/ },
  // PEM private keys (RFC 7468 §10–11: PRIVATE KEY, ENCRYPTED PRIVATE KEY, and RSA/EC/DSA/
  // OPENSSH … PRIVATE KEY), OpenPGP armour (RFC 4880 §6.2: PGP PRIVATE KEY BLOCK), PuTTY .ppk
  // (PuTTY manual, appendix C: PuTTY-User-Key-File-2/3).
  {
    name: 'private-key',
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d+:/,
  },
  // An HTTP Authorization header or a bearer token (RFC 9110 §11.6.2; RFC 6750 §2.1).
  {
    name: 'authorization-header',
    pattern: /\b(?:Proxy-)?Authorization\s*:\s*\S|\bBearer\s+[\w.~+/-]{16,}/i,
  },
  // dop_v1_/doo_v1_/dor_v1_ + 64 hex. docs.digitalocean.com: "How to create a personal access
  // token" (token prefixes).
  { name: 'digitalocean', pattern: /\bdo[por]_v1_[a-f0-9]{64}/ },
  // gsk_ (Groq), pplx- (Perplexity), xai- (xAI): providers Santra talks to, whose keys may sit
  // under any name. console.groq.com/docs "API keys"; docs.perplexity.ai "Getting started";
  // docs.x.ai "Overview"; lengths as in secretlint's groq rule and gitleaks' perplexity rule.
  {
    name: 'llm-provider-keys',
    pattern: /\bgsk_[A-Za-z0-9]{48,}|\bpplx-[A-Za-z0-9]{40,}|\bxai-[A-Za-z0-9]{64,}/,
  },
  // hvs./hvb./hvr. (service, batch, recovery). developer.hashicorp.com: Vault, "Tokens",
  // Token prefixes.
  { name: 'vault', pattern: /\bhv[sbr]\.[\w-]{24,}/ },
  // dp.pt./dp.st./dp.sa./dp.ct./dp.scim./dp.audit. (a service token names its config first:
  // dp.st.dev.…). docs.doppler.com: "Auth token formats".
  { name: 'doppler', pattern: /\bdp\.(?:pt|st|sa|ct|scim|audit)\.(?:[\w-]+\.)?[A-Za-z0-9]{40,}/ },
  // dapi + 32 hex. docs.databricks.com: "Databricks personal access token authentication".
  { name: 'databricks', pattern: /\bdapi[a-f0-9]{32}\b/ },
  // sntrys_ (organization token), sntryu_ (user token). docs.sentry.io: "Auth tokens".
  { name: 'sentry', pattern: /\bsntry[su]_[\w+/=-]{40,}/ },
  // glsa_ (service account), glc_ (Cloud access policy). grafana.com/docs: "Service accounts";
  // "Access policies".
  { name: 'grafana', pattern: /\bgl(?:sa|c)_[\w+/=-]{32,}/ },
  // tskey-auth-/tskey-api-/tskey-client-/…. tailscale.com/kb/1085: "Auth keys".
  { name: 'tailscale', pattern: /\btskey-[a-z]+-[\w-]{20,}/ },
  // dckr_pat_ (personal), dckr_oat_ (organisation). docs.docker.com: "Personal access tokens".
  { name: 'docker-hub', pattern: /\bdckr_(?:pat|oat)_[\w-]{20,}/ },
  // shpat_/shpca_/shppa_/shpss_ + 32 hex. shopify.dev: "Access tokens"; shape as in gitleaks.
  { name: 'shopify', pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}/ },
  // lin_api_ (personal), lin_oauth_. linear.app/developers: "Personal API keys".
  { name: 'linear', pattern: /\blin_(?:api|oauth)_[A-Za-z0-9]{40}/ },
  // PMAK-{24 hex}-{34 hex}. learning.postman.com: "Postman API authentication".
  { name: 'postman', pattern: /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}/ },
  // AGE-SECRET-KEY-1 + 58 Bech32 characters. age-encryption.org/v1: "X25519 recipient type".
  { name: 'age', pattern: /\bAGE-SECRET-KEY-1[0-9A-Z]{58}/ },
];

/**
 * Words that mark a secret wherever they appear in a name (AWS_SECRET_ACCESS_KEY, GH_TOKEN,
 * PGPASSWORD, GOOGLE_APPLICATION_CREDENTIALS, SLACK_WEBHOOK_URL, …). Over-matching
 * (TOKENIZERS_PARALLELISM) costs a harmless variable; under-matching leaks a key, so they are
 * broad. A webhook's URL is its credential.
 */
export const SECRET_NAME_WORDS =
  /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|COOKIE|PRIVATE|AUTHORI[SZ]ATION|BEARER|JWT|WEBHOOK/i;

/**
 * Words that mark a secret as a whole part of a name, between underscores or at an end:
 * SENTRY_DSN, NPM_CONFIG__AUTH, DB_PASS, LDAP_BIND_PW, GITHUB_PAT and AZURE_DEVOPS_EXT_PAT
 * (personal access tokens), GOOGLE_CREDS — but not GIT_AUTHOR_NAME, LD_LIBRARY_PATH or
 * GIT_ASKPASS (a program). PWD only after an underscore (MYSQL_PWD, the MySQL client's password,
 * dev.mysql.com "Environment Variables"; ORACLE_PWD): PWD and OLDPWD are the shell's directories.
 */
export const SECRET_NAME_PARTS = /(?:^|_)(?:DSN|AUTH|PASS|PW|PAT|CREDS?)(?:_|$)|_PWD(?:_|$)/i;

/**
 * Names that hold a secret although no word says so: the 1Password CLI's session tokens
 * (OP_SESSION_<account>, developer.1password.com "op signin"), the Bitwarden CLI's (BW_SESSION,
 * bitwarden.com/help/cli "unlock"), and sshpass's password (SSHPASS, sshpass(1) -e).
 */
export const SECRET_NAMES = /^(?:OP_SESSION_\w+|BW_SESSION|SSHPASS)$/i;

/**
 * Query (or fragment) parameters whose values are secrets, besides those named like a secret
 * variable: signatures (Azure SAS sig=, S3 and GCS X-Amz-Signature/X-Goog-Signature, whose
 * credentials also travel as X-Amz-Credential/X-Amz-Security-Token), session ids, and a bare
 * pwd. Tested on the name with `-` and `.` read as `_`.
 */
export const SECRET_PARAM_PARTS =
  /(?:^|_)(?:SIG|SIGNATURE|SESSION|SESSIONID|JSESSIONID|PHPSESSID|PWD)(?:_|$)/i;
