// SPDX-License-Identifier: GPL-2.0
/*
 * Thin C shims for kernel `static inline` functions and macros that bindgen
 * cannot turn into callable symbols. Each wraps exactly one kernel API.
 */
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/sched/clock.h>
#include <linux/uidgid.h>

#include "helpers.h"

struct inode *rft_d_inode(const struct dentry *dentry)
{
	return d_inode(dentry);
}

void rft_inode_lock(struct inode *inode)
{
	inode_lock(inode);
}

void rft_inode_unlock(struct inode *inode)
{
	inode_unlock(inode);
}

/* Maps an id of the mounting task's user namespace; false if unmapped. */
bool rft_make_kuid(u32 uid, kuid_t *out)
{
	*out = make_kuid(current_user_ns(), uid);
	return uid_valid(*out);
}

bool rft_make_kgid(u32 gid, kgid_t *out)
{
	*out = make_kgid(current_user_ns(), gid);
	return gid_valid(*out);
}

u32 rft_uid_value(kuid_t uid)
{
	return from_kuid_munged(&init_user_ns, uid);
}

u32 rft_gid_value(kgid_t gid)
{
	return from_kgid_munged(&init_user_ns, gid);
}

unsigned int rft_nr_cpu_ids(void)
{
	return nr_cpu_ids;
}

bool rft_cpu_possible(unsigned int cpu)
{
	return cpu_possible(cpu);
}

u64 rft_local_clock(void)
{
	return local_clock();
}

