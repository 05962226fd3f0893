/*
 * tls.h - the proxy's TLS (OpenSSL): the task's CA, the certificates it
 * makes for terminated hosts, and the connections on both sides.
 *
 * A task's CA is made once (an EC P-256 key and a self-signed certificate,
 * "agenttask task CA <name>", valid ten years, restricted to signing
 * server certificates: basicConstraints CA:TRUE pathlen 0, keyUsage
 * keyCertSign) into a directory of the task's state: ca.key (mode 0600, never
 * inside a sandbox) and ca.crt. A leaf for a host is made when it is first
 * terminated in a proxy's life: the host as its only subjectAltName,
 * serverAuth, valid from an hour ago for thirty days, one key for all of a
 * proxy's leaves.
 *
 * Upstream: TLS 1.2 or later, verified against OpenSSL's default verify
 * paths (the system's store, or SSL_CERT_FILE / SSL_CERT_DIR given to
 * agenttask), the host name checked, the server name sent. Both sides
 * speak HTTP/1.1 only (ALPN "http/1.1"): the proxy does not proxy HTTP/2.
 */
#ifndef AT_NET_TLS_H
#define AT_NET_TLS_H

#include <stdbool.h>
#include <stddef.h>

#include <openssl/ssl.h>

#include "core/error.h"

struct at_net_ca;

/*
 * The CA in dir (made there when absent, the directory too, mode 0700).
 * name goes into its subject. Only its certificate's text is read here:
 * the key and certificate are parsed when the proxy first needs them (a
 * CA that cannot be parsed then, or has expired, fails that connection,
 * saying to remove the directory). AT_ESYS on failure.
 */
int at_net_ca_open(const char *dir, const char *name, struct at_net_ca **out,
		   struct at_error *err);
void at_net_ca_free(struct at_net_ca *ca);

/* The CA's certificate, PEM (for the sandbox's trust store); valid while ca is. */
const char *at_net_ca_pem(const struct at_net_ca *ca, size_t *len);

/*
 * The server side for host (canonical): a context whose certificate is a
 * leaf for host, made and kept on first use (thread-safe). NULL with err.
 * Each SSL made from it must carry, as its app data
 * (SSL_set_app_data), the at_net_tls_name the handshake is for: a
 * ClientHello naming another server, or none, fails the handshake with an
 * unrecognized_name alert, and the name says which.
 */
struct at_net_tls_name {
	const char *host;         /* canonical: the name CONNECT asked for */
	bool other, none;         /* set when the hello named another server, or none */
};

SSL_CTX *at_net_tls_server(struct at_net_ca *ca, const char *host, struct at_error *err);

/* The client side, for every upstream (made once per CA, thread-safe). */
SSL_CTX *at_net_tls_client(struct at_net_ca *ca, struct at_error *err);

/* OpenSSL's last error, as one line (for records): into buf. */
const char *at_net_tls_error(char *buf, size_t size);

#endif
