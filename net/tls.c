#include "net/tls.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "core/util.h"
#include "net/rules.h"

#define CA_DAYS 3650
#define LEAF_DAYS 30
#define LEAVES_MAX 64

struct leaf {
	char host[AT_NET_HOST_MAX + 1];
	SSL_CTX *ctx;
};

struct at_net_ca {
	char dir[4096];
	bool loaded;              /* key and cert parsed (on first use, by the proxy) */
	X509 *cert;
	EVP_PKEY *key;
	char *pem;
	size_t pem_len;
	pthread_mutex_t lock;
	EVP_PKEY *leaf_key;       /* made on first use */
	struct leaf leaves[LEAVES_MAX];
	size_t nleaves;
	SSL_CTX *client;
};

const char *at_net_tls_error(char *buf, size_t size)
{
	unsigned long e = ERR_get_error();

	if (!e)
		snprintf(buf, size, "TLS failed");
	else
		ERR_error_string_n(e, buf, size);
	ERR_clear_error();
	return buf;
}

static int tls_fail(struct at_error *err, const char *what)
{
	char buf[256];

	return at_error_set(err, AT_ESYS, "%s: %s", what, at_net_tls_error(buf, sizeof(buf)));
}

static bool add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;
	bool ok;

	X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	ok = ext && X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	return ok;
}

/* A certificate with a random serial, its validity, subject CN and key; issuer's name set by caller. */
static X509 *cert_new(EVP_PKEY *pub, const char *cn, long from_s, long days)
{
	unsigned char serial[16];
	X509 *x = X509_new();
	BIGNUM *bn = NULL;
	bool ok;

	if (!x)
		return NULL;
	ok = RAND_bytes(serial, sizeof(serial)) == 1;
	serial[0] &= 0x7f;
	ok = ok && (bn = BN_bin2bn(serial, sizeof(serial), NULL)) &&
	     BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) &&
	     X509_set_version(x, 2) &&
	     X509_gmtime_adj(X509_getm_notBefore(x), from_s) &&
	     X509_time_adj_ex(X509_getm_notAfter(x), (int)days, 0, NULL) &&
	     X509_set_pubkey(x, pub) &&
	     X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_UTF8,
					(const unsigned char *)cn, -1, -1, 0);
	BN_free(bn);
	if (!ok) {
		X509_free(x);
		return NULL;
	}
	return x;
}

static X509 *ca_cert_make(EVP_PKEY *key, const char *name)
{
	char cn[128];
	X509 *x;

	snprintf(cn, sizeof(cn), "agenttask task CA %.60s", name);
	x = cert_new(key, cn, -3600, CA_DAYS);
	if (!x)
		return NULL;
	if (!X509_set_issuer_name(x, X509_get_subject_name(x)) ||
	    !add_ext(x, x, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") ||
	    !add_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign") ||
	    !add_ext(x, x, NID_subject_key_identifier, "hash") ||
	    !X509_sign(x, key, EVP_sha256())) {
		X509_free(x);
		return NULL;
	}
	return x;
}

/* Write PEM text to dir/name atomically with mode. */
static int write_pem(const char *dir, const char *name, mode_t mode, bool key, void *obj,
		     struct at_error *err)
{
	char path[4096], tmp[4096 + 16];
	FILE *f;
	int fd, ok;

	if (at_fmt(path, sizeof(path), "%s/%s", dir, name) < 0 ||
	    at_fmt(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid()) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", dir);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		return at_error_sys(err, AT_ESYS, "cannot write '%s'", tmp);
	}
	ok = key ? PEM_write_PrivateKey(f, obj, NULL, NULL, 0, NULL, NULL)
		 : PEM_write_X509(f, obj);
	ok = ok && fflush(f) == 0 && fsync(fileno(f)) == 0;
	if (fclose(f) != 0)
		ok = 0;
	if (!ok || rename(tmp, path) < 0) {
		unlink(tmp);
		return at_error_sys(err, AT_ESYS, "cannot write '%s'", path);
	}
	return 0;
}

static void *read_pem(const char *dir, const char *name, bool key)
{
	char path[4096];
	void *obj;
	FILE *f;
	int fd;

	if (at_fmt(path, sizeof(path), "%s/%s", dir, name) < 0)
		return NULL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(f = fdopen(fd, "r"))) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	obj = key ? (void *)PEM_read_PrivateKey(f, NULL, NULL, NULL)
		  : (void *)PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	return obj;
}

static bool usable(X509 *cert, EVP_PKEY *key)
{
	return cert && key && X509_check_private_key(cert, key) == 1 &&
	       X509_cmp_current_time(X509_get0_notAfter(cert)) > 0 &&
	       X509_cmp_current_time(X509_get0_notBefore(cert)) < 0;
}

static int ca_pem(struct at_net_ca *ca, struct at_error *err)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *data;
	long n;

	if (!b || !PEM_write_bio_X509(b, ca->cert) || (n = BIO_get_mem_data(b, &data)) <= 0 ||
	    !(ca->pem = malloc((size_t)n + 1))) {
		BIO_free(b);
		return tls_fail(err, "cannot encode the task's CA");
	}
	memcpy(ca->pem, data, (size_t)n);
	ca->pem[n] = '\0';
	ca->pem_len = (size_t)n;
	BIO_free(b);
	return 0;
}

static int ca_make(struct at_net_ca *ca, const char *dir, const char *name, struct at_error *err)
{
	int rc;

	X509_free(ca->cert);
	EVP_PKEY_free(ca->key);
	ca->cert = NULL;
	if (!(ca->key = EVP_EC_gen("P-256")) || !(ca->cert = ca_cert_make(ca->key, name)))
		return tls_fail(err, "cannot make the task's CA");
	if ((rc = write_pem(dir, "ca.key", 0600, true, ca->key, err)) < 0)
		return rc;
	return write_pem(dir, "ca.crt", 0644, false, ca->cert, err);
}

/* dir/name's bytes into a new buffer (NUL-terminated); NULL if it cannot be read. */
static char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[4096];

	if (at_fmt(path, sizeof(path), "%s/%s", dir, name) < 0)
		return NULL;
	return at_read_file(path, 1 << 16, len);
}

static bool key_present(const char *dir)
{
	char path[4096];
	struct stat st;

	return at_fmt(path, sizeof(path), "%s/ca.key", dir) == 0 && lstat(path, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

/*
 * Made once per task; afterwards a run only reads ca.crt's bytes for the
 * sandbox's bundle: OpenSSL parses nothing until the proxy terminates a
 * first connection (its start-up costs more than the rest of a run's).
 */
int at_net_ca_open(const char *dir, const char *name, struct at_net_ca **out,
		   struct at_error *err)
{
	struct at_net_ca *ca = calloc(1, sizeof(*ca));
	struct stat st;
	int rc = 0;

	*out = NULL;
	if (!ca)
		return at_error_set(err, AT_ESYS, "out of memory");
	pthread_mutex_init(&ca->lock, NULL);
	snprintf(ca->dir, sizeof(ca->dir), "%s", dir);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		rc = at_error_sys(err, AT_ESYS, "cannot make '%s'", dir);
	else if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		 (st.st_mode & 077))
		rc = at_error_set(err, AT_ESYS, "'%s' must be a directory of yours, mode 0700", dir);
	if (rc == 0 && (!key_present(dir) || !(ca->pem = slurp(dir, "ca.crt", &ca->pem_len)) ||
			!strstr(ca->pem, "-----BEGIN CERTIFICATE-----"))) {
		free(ca->pem);
		ca->pem = NULL;
		if ((rc = ca_make(ca, dir, name, err)) == 0 && (rc = ca_pem(ca, err)) == 0)
			ca->loaded = true;
	}
	if (rc < 0) {
		at_net_ca_free(ca);
		return rc;
	}
	*out = ca;
	return 0;
}

/* The key and certificate, parsed on first use (under ca->lock); false when they cannot be. */
static bool ca_load(struct at_net_ca *ca)
{
	if (ca->loaded)
		return true;
	ca->key = read_pem(ca->dir, "ca.key", true);
	ca->cert = read_pem(ca->dir, "ca.crt", false);
	ERR_clear_error();
	ca->loaded = usable(ca->cert, ca->key);
	return ca->loaded;
}

void at_net_ca_free(struct at_net_ca *ca)
{
	if (!ca)
		return;
	for (size_t i = 0; i < ca->nleaves; i++)
		SSL_CTX_free(ca->leaves[i].ctx);
	SSL_CTX_free(ca->client);
	EVP_PKEY_free(ca->leaf_key);
	EVP_PKEY_free(ca->key);
	X509_free(ca->cert);
	free(ca->pem);
	pthread_mutex_destroy(&ca->lock);
	free(ca);
}

const char *at_net_ca_pem(const struct at_net_ca *ca, size_t *len)
{
	*len = ca->pem_len;
	return ca->pem;
}

/* ALPN: HTTP/1.1 or nothing. A client that offers only h2 gets no protocol, and speaks 1.1. */
static int alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
		       const unsigned char *in, unsigned int inlen, void *arg)
{
	static const unsigned char h11[] = "\x08http/1.1";

	(void)ssl;
	(void)arg;
	if (SSL_select_next_proto((unsigned char **)out, outlen, h11, sizeof(h11) - 1, in, inlen) ==
	    OPENSSL_NPN_NEGOTIATED)
		return SSL_TLSEXT_ERR_OK;
	return SSL_TLSEXT_ERR_NOACK;
}

/* The hello's server name must be the connection's host (struct at_net_tls_name). */
static int sni_check(SSL *ssl, int *alert, void *arg)
{
	struct at_net_tls_name *want = SSL_get_app_data(ssl);
	const char *got = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
	char canon[AT_NET_HOST_MAX + 1];
	struct in6_addr ip;
	bool is_ip;

	(void)arg;
	if (!want)
		return SSL_TLSEXT_ERR_OK;
	if (!got)
		want->none = true;
	else if (!at_net_host_canon(got, canon, &ip, &is_ip) || is_ip ||
		 strcmp(canon, want->host) != 0)
		want->other = true;
	else
		return SSL_TLSEXT_ERR_OK;
	*alert = SSL_AD_UNRECOGNIZED_NAME;
	return SSL_TLSEXT_ERR_ALERT_FATAL;
}

static SSL_CTX *leaf_ctx(struct at_net_ca *ca, const char *host)
{
	char san[AT_NET_HOST_MAX + 8];
	SSL_CTX *ctx = NULL;
	struct in6_addr ip;
	char canon[AT_NET_HOST_MAX + 1];
	bool is_ip = false;
	X509 *x;

	if (!ca->leaf_key && !(ca->leaf_key = EVP_EC_gen("P-256")))
		return NULL;
	if (!at_net_host_canon(host, canon, &ip, &is_ip))
		return NULL;
	snprintf(san, sizeof(san), "%s:%s", is_ip ? "IP" : "DNS", host);
	x = cert_new(ca->leaf_key, host, -3600, LEAF_DAYS);
	if (x && X509_set_issuer_name(x, X509_get_subject_name(ca->cert)) &&
	    add_ext(x, ca->cert, NID_subject_alt_name, san) &&
	    add_ext(x, ca->cert, NID_basic_constraints, "critical,CA:FALSE") &&
	    add_ext(x, ca->cert, NID_ext_key_usage, "serverAuth") &&
	    add_ext(x, ca->cert, NID_authority_key_identifier, "keyid:always") &&
	    X509_sign(x, ca->key, EVP_sha256()) && (ctx = SSL_CTX_new(TLS_server_method()))) {
		if (!SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) ||
		    SSL_CTX_use_certificate(ctx, x) != 1 ||
		    SSL_CTX_use_PrivateKey(ctx, ca->leaf_key) != 1) {
			SSL_CTX_free(ctx);
			ctx = NULL;
		} else {
			SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL);
			SSL_CTX_set_tlsext_servername_callback(ctx, sni_check);
			SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
		}
	}
	X509_free(x);
	return ctx;
}

SSL_CTX *at_net_tls_server(struct at_net_ca *ca, const char *host, struct at_error *err)
{
	SSL_CTX *ctx = NULL;
	size_t i;

	pthread_mutex_lock(&ca->lock);
	for (i = 0; ca_load(ca) && i < ca->nleaves && !ctx; i++)
		if (strcmp(ca->leaves[i].host, host) == 0)
			ctx = ca->leaves[i].ctx;
	if (!ctx && ca->loaded && ca->nleaves < LEAVES_MAX && (ctx = leaf_ctx(ca, host))) {
		snprintf(ca->leaves[ca->nleaves].host, sizeof(ca->leaves[0].host), "%s", host);
		ca->leaves[ca->nleaves++].ctx = ctx;
	}
	pthread_mutex_unlock(&ca->lock);
	if (!ctx && !ca->loaded)
		at_error_set(err, AT_ESYS, "the task's CA in '%s' cannot be read, or has expired "
			     "(remove the directory: the next run makes a new one)", ca->dir);
	else if (!ctx)
		tls_fail(err, "cannot make a certificate");
	return ctx;
}

SSL_CTX *at_net_tls_client(struct at_net_ca *ca, struct at_error *err)
{
	static const unsigned char h11[] = "\x08http/1.1";
	SSL_CTX *ctx;

	pthread_mutex_lock(&ca->lock);
	if (!ca->client && (ctx = SSL_CTX_new(TLS_client_method()))) {
		if (SSL_CTX_set_default_verify_paths(ctx) != 1 ||
		    !SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) ||
		    SSL_CTX_set_alpn_protos(ctx, h11, sizeof(h11) - 1) != 0) {
			SSL_CTX_free(ctx);
		} else {
			SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
			ca->client = ctx;
		}
	}
	ctx = ca->client;
	pthread_mutex_unlock(&ca->lock);
	if (!ctx)
		tls_fail(err, "cannot set up TLS to the hosts");
	return ctx;
}
