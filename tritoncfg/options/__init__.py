"""Each lint option declared once (table.py): its settings key, command-line flag, help, value
parser and docs. The settings JSON schema (settings.py), the merge of settings and overrides
(lintoptions.py), `tritoncfg lint`'s options (cli/lint_options.py) and the docs tables
(markdown.py, through tools/gen_docs.py) are derived from that table. values.py: the parsers;
choices.py: the enums every command shares."""
