#include "base/command.h"
#include <stdlib.h>
#include <string.h>

/* dash's builtins and reserved words: a command that starts with one runs
 * in the shell (echo, test, kill, true differ from their programs). */
static const char *const shell_words[] = {
    ".", ":", "[", "alias", "bg", "break", "cd", "chdir", "command", "continue", "echo", "eval", "exec", "exit",
    "export", "false", "fc", "fg", "getopts", "hash", "jobs", "kill", "local", "printf", "pwd", "read",
    "readonly", "return", "set", "shift", "test", "times", "trap", "true", "type", "ulimit", "umask", "unalias",
    "unset", "wait", "if", "then", "else", "elif", "fi", "case", "esac", "for", "while", "until", "do", "done",
    "function", "in", "select",
};

/* Bytes that mean nothing to the shell inside a word: no quoting,
 * expansion, redirection, globbing, comment or control operator. */
static bool plain(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("_./:,+@%=^-", c);
}

static bool shell_word(const char *w)
{
    for (size_t i = 0; i < sizeof shell_words / sizeof *shell_words; i++)
        if (!strcmp(w, shell_words[i])) return true;
    return false;
}

char **command_words(const char *command)
{
    size_t len = strlen(command), n = 0;
    for (size_t i = 0; i < len; i++) {
        if (command[i] == ' ' || command[i] == '\t') continue;
        if (!plain(command[i])) return NULL;
        if (i == 0 || command[i - 1] == ' ' || command[i - 1] == '\t') n++;
    }
    if (n == 0) return NULL;
    /* One block: the pointers, then a copy of the command they point into. */
    char **words = malloc((n + 1) * sizeof *words + len + 1);
    if (!words) return NULL;
    char *copy = memcpy((char *)(words + n + 1), command, len + 1);
    size_t k = 0;
    for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) words[k++] = w;
    words[k] = NULL;
    /* `exec PROGRAM ...` is PROGRAM ... run in the shell's place: the same. */
    size_t first = !strcmp(words[0], "exec") && k > 1 && words[1][0] != '-' ? 1 : 0;
    if (strchr(words[first], '=') || shell_word(words[first])) {
        free(words);
        return NULL;
    }
    if (first) memmove(words, words + 1, k * sizeof *words);   /* with the NULL */
    return words;
}

const char *const command_shell_names[2] = { "auto", "always" };
