#!/usr/bin/env python3
"""Builds litellm-1.109.1.json, ndjq's built-in price table, from two LiteLLM wheels.

    pip download --no-deps litellm==1.109.1 -d new
    pip download --no-deps litellm==1.80.0 -d old
    unzip -q new/*.whl litellm/model_prices_and_context_window_backup.json -d new/x
    unzip -q old/*.whl litellm/model_prices_and_context_window_backup.json -d old/x
    python3 trim.py   # in that folder

The newest release wins; the older one adds the models the newest no longer lists
(claude-sonnet-4-20250514, claude-opus-4-1-20250805, ...). Only chat models of the
providers coding agents call are kept, and only their price fields.
"""
import json,sys
new=json.load(open('new/x/litellm/model_prices_and_context_window_backup.json'))
old=json.load(open('old/x/litellm/model_prices_and_context_window_backup.json'))
FIELDS=['input_cost_per_token','output_cost_per_token','cache_creation_input_token_cost','cache_read_input_token_cost',
'input_cost_per_token_above_200k_tokens','output_cost_per_token_above_200k_tokens',
'cache_creation_input_token_cost_above_200k_tokens','cache_read_input_token_cost_above_200k_tokens','cache_creation_input_token_cost_above_1hr','litellm_provider']
PROV={'anthropic','openai','gemini','xai','deepseek','dashscope','moonshot','mistral','zai','text-completion-openai'}
PREFIX=('gemini/','dashscope/','deepseek/','xai/','moonshot/','mistral/','zai/','openrouter/qwen/','openrouter/anthropic/','openrouter/openai/','openrouter/google/')
def keep(k,v):
    if not isinstance(v,dict) or 'input_cost_per_token' not in v: return False
    if v.get('mode') not in ('chat','responses',None): return False
    p=v.get('litellm_provider','')
    if '/' not in k: return p in PROV
    return k.startswith(PREFIX)
out={}
for src in (old,new):
    for k,v in src.items():
        if keep(k,v):
            out[k]={f:v[f] for f in FIELDS if f in v}
print(len(out),file=sys.stderr)
meta={"source":"LiteLLM model_prices_and_context_window_backup.json (MIT, github.com/BerriAI/litellm)","versions":["litellm 1.109.1","litellm 1.80.0"],"date":"2026-11-24","trimmed":"chat models of Anthropic, OpenAI, Google Gemini, xAI, DeepSeek, Qwen (dashscope), Moonshot, Mistral, Z.ai; price fields only; the newest version wins, the older adds retired models"}
doc={"ndjq_pricing":meta}
doc.update(dict(sorted(out.items())))
json.dump(doc,open('litellm-1.109.1.json','w'),indent=1,sort_keys=False)
