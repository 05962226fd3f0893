/*
 * index_read.h - a worktree's index file read from disk, for at_index_parse()
 * (gitfmt/index_file.h) to parse.
 */
#ifndef AT_GIT_INDEX_READ_H
#define AT_GIT_INDEX_READ_H

#include "core/error.h"
#include "gitfmt/index_file.h"

/*
 * Read the index file at path (a regular file; read, not mapped) and parse
 * it; out->mtime is the file's. 0, AT_INDEX_DECLINED (no file, or one the
 * parser declines: nothing kept), or a negative code with err set.
 */
int at_index_read(const char *path, struct at_index *out, struct at_error *err);

#endif
