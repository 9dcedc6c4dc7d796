"""Honest rewrites, the dual of mutation analysis: does the hidden suite let correct
code through? (docs/MUTATION.md, "Honest rewrites")"""
