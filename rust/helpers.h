/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thin C shims for kernel `static inline` functions and macros that bindgen
 * cannot turn into callable symbols. No logic lives here.
 */
#ifndef RFTRACE_HELPERS_H
#define RFTRACE_HELPERS_H

#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/types.h>

struct inode *rft_d_inode(const struct dentry *dentry);
void rft_inode_lock(struct inode *inode);
void rft_inode_unlock(struct inode *inode);
bool rft_make_kuid(u32 uid, kuid_t *out);
bool rft_make_kgid(u32 gid, kgid_t *out);
u32 rft_uid_value(kuid_t uid);
u32 rft_gid_value(kgid_t gid);
unsigned int rft_nr_cpu_ids(void);
bool rft_cpu_possible(unsigned int cpu);
u64 rft_local_clock(void);

#endif
