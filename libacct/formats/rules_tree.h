/* The rules schema on a YAML tree, for the documents that hold rules (a
 * tuning result's "rules" value, result.c). Internal to libacct/formats:
 * rules.c implements it on yamltree.h, which knows no schema. */
#ifndef ACCT_RULES_TREE_H
#define ACCT_RULES_TREE_H

#include <stdio.h>

#include "acct/rules.h"
#include "yamltree.h"

/* Walk the rules document at root (a rules file's top, or a result's
 * "rules" value) with field paths under prefix ("" or "rules"), reporting
 * into p. Returns the rules (sorted, nrules set, hash 0), which are only
 * meaningful if p->errors did not grow; NULL when out of memory. */
struct acct_rules *acct_rules_from_tree(struct yt_parse *p, const struct ynode *root,
                                        const char *prefix);

/* acct_rules_write's body, every line indented by indent, without the
 * leading comment. */
int acct_rules_write_indented(FILE *f, const struct acct_rules *r, const char *indent);

#endif
