/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kselftest_harness.h, and what nsfd needs of it on every tree from 6.1
 * LTS on. Before 6.9 (no exit_code, no XFAIL_ADD) the harness runs a
 * fixture's test body even after a SKIP() in its FIXTURE_SETUP, and has no
 * XFAIL. So a SKIP leaves the test the way a failed ASSERT does, on every
 * harness: a longjmp back to the harness, which reports the skip and its
 * reason (6.12 then runs the teardown if setup had completed, as after a
 * return). Before 6.9 an expected failure is reported as a SKIP with the
 * same reason.
 */
#ifndef NSFD_HARNESS_H
#define NSFD_HARNESS_H

#include "../kselftest_harness.h"

#define NSFD_SKIP_OUT		longjmp(_metadata->env, 1)

#ifdef XFAIL_ADD
#define NSFD_MARK_XFAIL(m)	((m)->exit_code = KSFT_XFAIL)
#define NSFD_MARK_FAIL(m)	((m)->exit_code = KSFT_FAIL)
#else
#define NSFD_MARK_XFAIL(m)	((m)->skip = 1)
#define NSFD_MARK_FAIL(m)	((m)->passed = 0)
#endif

#endif /* NSFD_HARNESS_H */
