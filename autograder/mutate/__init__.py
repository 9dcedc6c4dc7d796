"""Mutation analysis of a hidden suite: which bugs would it miss? (docs/MUTATION.md)"""
