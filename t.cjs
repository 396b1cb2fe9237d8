const de=require('@zxcvbn-ts/language-de').dictionary, en=require('@zxcvbn-ts/language-en').dictionary, fr=require('@zxcvbn-ts/language-fr').dictionary;
const first=new Set([...de.firstnames,...en['firstnames-en'],...fr['lastnames-fr']]);
const K=+process.argv[2];
const common=new Set([...de.commonWords.slice(0,K),...en['commonWords-en'].slice(0,K),...fr['commonWords-fr'].slice(0,K)]);
const amb=[...first].filter(f=>common.has(f));
console.log(first.size, amb.length, amb.slice(0,400).join(' '));
