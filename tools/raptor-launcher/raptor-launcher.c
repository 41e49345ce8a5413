//===- raptor-launcher.c - The `raptor` command -------------------*- C -*-===//
//
// The `raptor` command is Python (raptor_command), but Python's own start
// (the site module, the environment's .pth files) takes tens of
// milliseconds during which Ctrl-C or SIGTERM ends the interpreter with a
// traceback from inside its importer, before any of Raptor's code can
// handle it. So the command is this launcher: it blocks SIGINT and SIGTERM
// (the blocked set survives exec) and executes the environment's Python on
// raptor_command, which unblocks them once the compiler is loaded; a signal
// that arrived meanwhile is delivered then and ends the command with exit
// 130 (SIGINT) or by SIGTERM's default action, with no traceback.
//
//===----------------------------------------------------------------------===//

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef RAPTOR_BUILD_PYTHON
#define RAPTOR_BUILD_PYTHON "python3"
#endif

// The Python beside this executable (an environment's bin/ holds both), else
// the one the project was built with, else python3 on the PATH.
static const char *findPython(char *buffer, size_t size) {
  ssize_t n = readlink("/proc/self/exe", buffer, size - 1);
  if (n > 0) {
    buffer[n] = '\0';
    char *slash = strrchr(buffer, '/');
    if (slash && (size_t)(slash - buffer) + sizeof("/python3") <= size) {
      strcpy(slash, "/python3");
      if (access(buffer, X_OK) == 0)
        return buffer;
    }
  }
  if (access(RAPTOR_BUILD_PYTHON, X_OK) == 0)
    return RAPTOR_BUILD_PYTHON;
  return "python3";
}

int main(int argc, char **argv) {
  sigset_t held;
  sigemptyset(&held);
  sigaddset(&held, SIGINT);
  sigaddset(&held, SIGTERM);
  sigprocmask(SIG_BLOCK, &held, NULL);

  char buffer[PATH_MAX];
  const char *python = findPython(buffer, sizeof buffer);
  char **args = calloc((size_t)argc + 3, sizeof *args);
  if (!args) {
    fputs("raptor: out of memory\n", stderr);
    return 1;
  }
  args[0] = (char *)python;
  args[1] = "-m";
  args[2] = "raptor_command";
  for (int i = 1; i < argc; ++i)
    args[i + 2] = argv[i];
  execvp(python, args);
  fprintf(stderr, "raptor: cannot run the Python interpreter '%s': %s\n", python, strerror(errno));
  return 1;
}
