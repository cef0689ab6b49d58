/*
 * emu_report.cc — what the checks found, said so a reader can find it: the
 * kind, the kernel, the block, the threads, the source lines, and the seed
 * to replay the schedule.
 *
 * Source lines come from the code addresses the hooks saw, through
 * addr2line on the object that holds them (only when something is
 * reported; the result is cached), with the chain of inlined calls: the
 * kernels are built from __forceinline__ device functions.  Without
 * addr2line a report gives object and offset instead.
 */
#include "emu_internal.h"

#include <cstdio>
#include <cstring>
#include <map>

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>

const char *const bs_emu_check_names[BS_EMU_CHECKS] = {"race", "out of bounds", "barrier"};

namespace bs_emu
{

namespace
{

std::vector<bs_emu_report> pending;
bool		print_reports = true;
std::map<const void *, std::vector<std::string>> frames_cache;

/* The file name without its directories. */
std::string
base_name(const std::string &path)
{
	size_t		slash = path.rfind('/');

	return slash == std::string::npos ? path : path.substr(slash + 1);
}

/* A function's name without its parameter list (addr2line -C prints it). */
std::string
short_function(std::string f)
{
	size_t		paren = f.find('(');

	if (paren != std::string::npos && paren > 0)
		f.erase(paren);
	return f;
}

/* The object holding code address pc, and pc as addr2line wants it; false when unknown. */
bool
locate(const void *pc, std::string *object, uintptr_t *offset)
{
	Dl_info		info;

	if (dladdr(pc, &info) == 0 || info.dli_fbase == nullptr)
		return false;
	/* the main program's name may be relative: its link in /proc names it for any shell */
	*object = info.dli_fname != nullptr && info.dli_fname[0] == '/' ? info.dli_fname :
		"/proc/" + std::to_string(getpid()) + "/exe";
	*offset = (uintptr_t) pc;
	if (((const ElfW(Ehdr) *) info.dli_fbase)->e_type == ET_DYN)
		*offset -= (uintptr_t) info.dli_fbase;
	return true;
}

/* "file:line in function" for pc and each call it is inlined in, innermost first. */
const std::vector<std::string> &
frames(const void *pc)
{
	auto		it = frames_cache.find(pc);
	std::string object;
	uintptr_t	offset;
	char		cmd[4200],
				fn[2048],
				line[2048];
	FILE	   *p;

	if (it != frames_cache.end())
		return it->second;
	std::vector<std::string> &out = frames_cache[pc];

	if (!locate(pc, &object, &offset))
		return out;
	snprintf(cmd, sizeof(cmd), "addr2line -f -i -C -e '%s' 0x%lx 2>/dev/null", object.c_str(), (unsigned long) offset);
	if ((p = popen(cmd, "r")) != nullptr)
	{
		while (fgets(fn, sizeof(fn), p) != nullptr && fgets(line, sizeof(line), p) != nullptr)
		{
			fn[strcspn(fn, "\n")] = '\0';
			line[strcspn(line, " \n")] = '\0';
			out.push_back(base_name(line) + " in " + short_function(fn));
		}
		pclose(p);
	}
	if (out.empty())
		out.push_back(base_name(object) + "+0x" + std::to_string(offset));
	return out;
}

/* The kernel's name: its function's, else the launch's text. */
std::string
kernel_name(void)
{
	const std::vector<std::string> &f = frames((const char *) launch.kernel + 1);
	size_t		in = f.empty() ? std::string::npos : f[0].find(" in ");

	return in == std::string::npos ? launch.label : f[0].substr(in + 4);
}

}								/* namespace */

/* "file:line in function (inlined in file:line in function, ...)" for a code address. */
std::string
where(const void *pc)
{
	/* a return address: the call is the byte before */
	const std::vector<std::string> &f = frames((const char *) pc - 1);
	std::string s;

	for (size_t i = 0; i < f.size(); i++)
		s += (i == 0 ? "" : i == 1 ? " (inlined in " : ", in ") + f[i];
	return f.size() > 1 ? s + ")" : s;
}

/* "file:line" with the file's directories left out. */
std::string
source_line(const char *file, int line)
{
	return base_name(file) + ":" + std::to_string(line);
}

/* A thread's coordinates "(x,y,z)" from its linear index in the block. */
std::string
thread_name(unsigned tid)
{
	const dim3	bd = bs_emu_at.block_dim;

	return "(" + std::to_string(tid % bd.x) + "," + std::to_string(tid / bd.x % bd.y) + "," +
		std::to_string(tid / (bd.x * bd.y)) + ")";
}

/* Record a finding: the launch's context, then the message; print it unless told not to. */
void
report(bs_emu_check kind, const char *fmt, ...)
{
	char		msg[4096];
	va_list		ap;
	std::string text;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (launch.in_grid)
		text = "kernel " + kernel_name() + ", block (" + std::to_string(bs_emu_at.block.x) + "," +
			std::to_string(bs_emu_at.block.y) + "," + std::to_string(bs_emu_at.block.z) + "): ";
	text += msg;
	if (launch.kernel != nullptr)
		text += " [seed " + std::to_string(launch.seed) + ", launch " + std::to_string(launch.number) +
			" since the seed was set; replay: BS_EMU_SEED=" + std::to_string(launch.seed) + "]";
	pending.push_back(bs_emu_report {kind, text});
	if (print_reports)
		fprintf(stderr, "# SIMT emulator: %s: %s\n", bs_emu_check_names[kind], text.c_str());
}

}								/* namespace bs_emu */

using namespace bs_emu;

/* The findings not yet taken, oldest first. */
std::vector<bs_emu_report>
bs_emu_take_reports(void)
{
	std::vector<bs_emu_report> out;

	out.swap(pending);
	return out;
}

/* How many findings are waiting. */
long
bs_emu_pending_reports(void)
{
	return (long) pending.size();
}

/* Print each finding to stderr as it is made (the default), or not: a test that expects them. */
void
bs_emu_print_reports(bool on)
{
	print_reports = on;
}
