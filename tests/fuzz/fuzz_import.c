/*
 * fuzz_import.c - the task's objects as the import reads them
 * (git/import.c): loose objects and packs the command in the sandbox wrote.
 *
 * The input's first byte picks what it is: a commit, tree, tag or blob
 * written as a loose object of the task's layer (with the right id: a bad
 * one is the hash check's business, tested in sandbox_git.sh), or a pack
 * file of the layer; the rest is its content. The import is then asked for
 * that object (for a pack, for an id taken from the input). Checked:
 *   - a success leaves the object in the repository with everything it
 *     points to (a tree's entries, a commit's tree and parents, a tag's
 *     target): no object ever comes in without its closure;
 *   - a failure is one of the documented codes, with a message;
 *   - nothing is ever read through a link, or outside the layer.
 */
#include "tests/fuzz/fuzz.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>

#include "core/fs.h"
#include "git/import.h"
#include "git/internal.h"

static char host[PATH_MAX], layer[PATH_MAX], quar[PATH_MAX];
static char keep[3][GIT_OID_HEXSZ + 1];

/* The repository: one commit of one file, the objects an import may rely on. */
static void make_host(void)
{
	git_repository *repo = NULL;
	git_signature *sig = NULL;
	git_treebuilder *tb = NULL;
	git_oid blob, tree, commit;
	git_tree *t = NULL;

	AT_FUZZ_CHECK(git_repository_init(&repo, host, 0) == 0);
	AT_FUZZ_CHECK(git_blob_create_from_buffer(&blob, repo, "hello\n", 6) == 0);
	AT_FUZZ_CHECK(git_treebuilder_new(&tb, repo, NULL) == 0);
	AT_FUZZ_CHECK(git_treebuilder_insert(NULL, tb, "README", &blob, GIT_FILEMODE_BLOB) == 0);
	AT_FUZZ_CHECK(git_treebuilder_write(&tree, tb) == 0);
	AT_FUZZ_CHECK(git_tree_lookup(&t, repo, &tree) == 0);
	AT_FUZZ_CHECK(git_signature_new(&sig, "f", "f@example.com", 1, 0) == 0);
	AT_FUZZ_CHECK(git_commit_create(&commit, repo, "HEAD", sig, sig, NULL, "base\n", t, 0,
					NULL) == 0);
	git_oid_tostr(keep[0], sizeof(keep[0]), &blob);
	git_oid_tostr(keep[1], sizeof(keep[1]), &tree);
	git_oid_tostr(keep[2], sizeof(keep[2]), &commit);
	git_signature_free(sig);
	git_tree_free(t);
	git_treebuilder_free(tb);
	git_repository_free(repo);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	git_libgit2_init();
	snprintf(host, sizeof(host), "%s/host", at_fuzz_tmpdir());
	snprintf(layer, sizeof(layer), "%s/layer/objects", at_fuzz_tmpdir());
	snprintf(quar, sizeof(quar), "%s/quarantine", at_fuzz_tmpdir());
	make_host();
	return 0;
}

static bool kept(const char *dir, const char *name)
{
	size_t i;

	for (i = 0; i < 3; i++)
		if (strncmp(keep[i], dir, 2) == 0 && strcmp(keep[i] + 2, name) == 0)
			return true;
	return false;
}

/* The repository back to its one commit: what the last input imported goes. */
static void reset_host(void)
{
	char objects[PATH_MAX + 16], sub[PATH_MAX + 32], file[PATH_MAX + 80];
	struct dirent *de, *fe;
	DIR *d, *s;

	snprintf(objects, sizeof(objects), "%s/.git/objects", host);
	AT_FUZZ_CHECK((d = opendir(objects)) != NULL);
	while ((de = readdir(d))) {
		if (strlen(de->d_name) != 2 || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", objects, de->d_name);
		if (!(s = opendir(sub)))
			continue;
		while ((fe = readdir(s))) {
			if (fe->d_name[0] == '.' || kept(de->d_name, fe->d_name))
				continue;
			snprintf(file, sizeof(file), "%s/%s", sub, fe->d_name);
			unlink(file);
		}
		closedir(s);
	}
	closedir(d);
}

/* Write the input as the task's loose object (its id right) or pack; the id asked for. */
static void plant(const uint8_t *data, size_t size, git_oid *want)
{
	static const git_object_t types[] = { GIT_OBJECT_COMMIT, GIT_OBJECT_TREE, GIT_OBJECT_TAG,
					      GIT_OBJECT_BLOB };
	struct at_error err = AT_ERROR_INIT;
	uint8_t kind = size ? data[0] : 0;
	char pack[PATH_MAX + 32];

	at_rmtree(layer, &err);
	AT_FUZZ_CHECK(at_mkdirs(layer, 0700, &err) == 0);
	if (size)
		data++, size--;
	if (kind < 0xf0) {
		git_odb_backend *b = NULL;
		git_odb *odb = NULL;

		AT_FUZZ_CHECK(git_odb_new(&odb) == 0);
		AT_FUZZ_CHECK(git_odb_backend_loose(&b, layer, -1, 0, 0700, 0644) == 0);
		AT_FUZZ_CHECK(git_odb_add_backend(odb, b, 1) == 0);
		AT_FUZZ_CHECK(git_odb_write(want, odb, data, size, types[kind % 4]) == 0);
		git_odb_free(odb);
		return;
	}
	snprintf(pack, sizeof(pack), "%s/pack", layer);
	AT_FUZZ_CHECK(at_mkdirs(pack, 0700, &err) == 0);
	snprintf(pack, sizeof(pack), "%s/pack/pack-fuzz.pack", layer);
	at_fuzz_write_file(pack, data, size);
	memset(want, 0, sizeof(*want));
	if (size >= 32 + GIT_OID_RAWSZ)
		memcpy(want->id, data + 32, GIT_OID_RAWSZ);
}

/* Everything the object points to is in the repository. */
static void check_closure(git_repository *repo, const git_oid *id)
{
	git_object *o = NULL;
	size_t i;

	AT_FUZZ_CHECK(git_object_lookup(&o, repo, id, GIT_OBJECT_ANY) == 0);
	if (git_object_type(o) == GIT_OBJECT_TREE) {
		const git_tree *t = (const git_tree *)o;

		for (i = 0; i < git_tree_entrycount(t); i++) {
			const git_tree_entry *e = git_tree_entry_byindex(t, i);

			if (git_tree_entry_filemode(e) != GIT_FILEMODE_COMMIT)
				check_closure(repo, git_tree_entry_id(e));
		}
	} else if (git_object_type(o) == GIT_OBJECT_COMMIT) {
		const git_commit *c = (const git_commit *)o;

		check_closure(repo, git_commit_tree_id(c));
		for (i = 0; i < git_commit_parentcount(c); i++)
			check_closure(repo, git_commit_parent_id(c, (unsigned int)i));
	} else if (git_object_type(o) == GIT_OBJECT_TAG) {
		check_closure(repo, git_tag_target_id((const git_tag *)o));
	}
	git_object_free(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct at_error err = AT_ERROR_INIT, qerr = AT_ERROR_INIT;
	struct at_import_stats stats;
	struct at_repo *r = NULL;
	struct at_oid tip;
	git_oid want;
	int fd, rc;

	plant(data, size, &want);
	at_oid_from_git(&tip, &want);
	if (at_repo_open(&r, host, &err) < 0)
		at_fuzz_fail(err.msg, __FILE__, __LINE__);
	at_rmtree(quar, &qerr);
	AT_FUZZ_CHECK(mkdir(quar, 0700) == 0);
	fd = open(layer, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	AT_FUZZ_CHECK(fd >= 0);
	rc = at_git_import_objects(r, fd, quar, &tip, &stats, &err);
	close(fd);
	if (rc == 0)
		check_closure(r->repo, &want);
	else
		at_fuzz_check_error(rc, &err);
	AT_FUZZ_CHECK(rc == 0 || rc == AT_EUNSAFE || rc == AT_ESYS || rc == AT_EGIT);
	at_repo_free(r);
	reset_host();
	return 0;
}
