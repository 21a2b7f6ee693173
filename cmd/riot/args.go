package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/riot-tools/riot/config"
)

// argsInOwnWords wraps the argument check of every command below root, so that a wrong argument count says, in riot's words, what the
// command takes, with its usage line, instead of cobra's "accepts between
// 1 and 2 arg(s)".
func argsInOwnWords(root *cobra.Command) {
	for _, c := range root.Commands() {
		argsInOwnWords(c)
		wrapArgs(c)
	}
}

func wrapArgs(cmd *cobra.Command) {
	check := cmd.Args
	if check == nil {
		return
	}
	cmd.Args = func(c *cobra.Command, args []string) error {
		if check(c, args) == nil {
			return nil
		}
		return usageErr("%s\n%s", argsMessage(c, args), usageHint(c))
	}
}

// argsMessage says what c takes and what it was given.
func argsMessage(c *cobra.Command, args []string) string {
	_, want, _ := strings.Cut(c.Use, " ")
	given := "no arguments"
	if len(args) > 0 {
		given = fmt.Sprintf("%d (%s)", len(args), strings.Join(quoteAll(args), " "))
	}
	if want == "" {
		return fmt.Sprintf("%s takes no arguments, but was given %s", c.CommandPath(), given)
	}
	return fmt.Sprintf("%s takes %s, but was given %s", c.CommandPath(), want, given)
}

// usageHint is c's usage line and where its help is.
func usageHint(c *cobra.Command) string {
	return fmt.Sprintf("usage: %s\nRun `%s --help` for the details.", c.UseLine(), c.CommandPath())
}

// rootArgs is the root command's check: a word that is no command is a
// usage error naming the nearest command, never cobra's text.
func rootArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	msg := fmt.Sprintf("riot has no command %q.", args[0])
	if s := config.Nearest(args[0], names); s != "" {
		msg = fmt.Sprintf("riot has no command %q; did you mean %q?", args[0], s)
	}
	return usageErr("%s The commands are: %s.\nRun `riot --help` for the details.", msg, strings.Join(names, ", "))
}

// flagError words pflag's errors as riot's, from their types: never
// "strconv.ParseBool: parsing \"x\": invalid syntax".
func flagError(c *cobra.Command, err error) error {
	var invalid *pflag.InvalidValueError
	var missing *pflag.ValueRequiredError
	var unknown *pflag.NotExistError
	msg := err.Error()
	switch {
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		msg = fmt.Sprintf("--%s takes %s, not %q", f.Name, flagValueKind(f), invalid.GetValue())
	case errors.As(err, &missing):
		f := missing.GetFlag()
		msg = fmt.Sprintf("--%s needs a value: %s", f.Name, f.Usage)
	case errors.As(err, &unknown):
		name := "--" + unknown.GetSpecifiedName()
		if unknown.GetSpecifiedShortnames() != "" {
			name = "-" + unknown.GetSpecifiedName()
		}
		msg = fmt.Sprintf("%s has no flag %s", c.CommandPath(), name)
	}
	return usageErr("%s\n%s", msg, usageHint(c))
}

// flagValueKind says what a flag's value is, in words.
func flagValueKind(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "bool":
		return "true or false"
	case "int", "int64":
		return "a whole number"
	case "duration":
		return `a duration such as "90s"`
	default:
		return "a value"
	}
}
